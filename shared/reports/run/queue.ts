import * as z from '#shared/platform/zod.ts';

/**
 * Settings of the `report-rows` queue that both the route table and the row worker read, and the
 * messages it carries (pointers, never values).
 */
export const REPORT_ROWS_QUEUE = {
  name: 'report-rows',
  /** Deliveries of one message; the last one marks a batch that keeps failing FAILED. */
  maxReceiveCount: 5,
  /** The worker's timeout: a batch of rows whose columns call an LLM must fit. */
  timeoutSeconds: 900,
  /** Messages per invocation (they run at once). */
  batchSize: 4,
  /** Invocations at once: in AWS the event source mapping's maximum concurrency, locally parallel batches. */
  maxConcurrency: 8,
} as const;

/**
 * A batch's lease: renewed every REPORT_LEASE_RENEW_MS while its worker runs it, so a batch whose lease
 * lapsed lost its worker (a crash, a restart of the local service) and its next delivery takes it over.
 */
export const REPORT_LEASE_MS = 90_000;
export const REPORT_LEASE_RENEW_MS = 20_000;
/** Claims of one batch before its cells are FAILED (a worker that dies on it every time). */
export const MAX_BATCH_ATTEMPTS = REPORT_ROWS_QUEUE.maxReceiveCount;
/** Rows of one batch that run at once. */
export const ROWS_IN_FLIGHT = 4;

/** Rows per batch: at least 10, more for big datasets so that a run has at most ~1,000 batches. */
export const MIN_BATCH_ROWS = 10;
export const MAX_BATCHES = 1000;
export const batchSizeFor = (rowCount: number) => Math.max(MIN_BATCH_ROWS, Math.ceil(rowCount / MAX_BATCHES));

const runMessageFields = {
  v: z.literal(1),
  ws: z.int(),
  reportId: z.int(),
  run: z.int(),
};

/** Sends one message per batch of a run (the run route sends it; redelivery sends them again, harmless). */
const runStartMessageSchema = z.object({ ...runMessageFields, type: z.literal('report-run-start') });
export type RunStartMessage = z.infer<typeof runStartMessageSchema>;

/** One batch of rows of a run. */
const rowsMessageSchema = z.object({
  ...runMessageFields,
  type: z.literal('report-rows'),
  batch: z.int().check(z.gte(0)),
});
export type RowsMessage = z.infer<typeof rowsMessageSchema>;

export const reportRowsMessageSchema = z.discriminatedUnion('type', [
  runStartMessageSchema,
  rowsMessageSchema,
]);
export type ReportRowsQueueMessage = z.infer<typeof reportRowsMessageSchema>;
