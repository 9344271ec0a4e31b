import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { costOf, type PricedRequest } from '#shared/costs/cost.ts';
import { listOverrides, type ModelPriceOverride } from '#shared/costs/overrides.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { deleteItem, getItem, updateItem } from '#shared/platform/items.ts';
import { sendJob } from '#shared/platform/jobs.ts';
import { logger } from '#shared/platform/logger.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import type { FilterGroup } from '#shared/request-logs/filters.ts';
import { matchingRequestLogs } from '#shared/request-logs/query.ts';
import { type CostBreakdown, type RequestLogRecord, usageOf } from '#shared/request-logs/record.ts';
import { updateRequestLog } from '#shared/request-logs/repository.ts';

/**
 * POST /api/public/v2/requests/cost-recompute: rewrites the cost of the workspace's logs that match a
 * filter group within a time range, with the price table and the overrides as they are now. Logs priced
 * by their client keep their price. Runs as a job on the `cost-recompute-jobs` queue, in steps:
 *
 * - a step reads the matches in time order (start time, then id) from the job's cursor, rewrites the
 *   logs whose cost changed (the repository's optimistic-concurrency rewrite: a score or metadata update
 *   made meanwhile is kept), and after STEP_MAX_LOGS logs or STEP_MAX_MS checkpoints (cursor, counts,
 *   step number) with a write conditional on the step it ran, then sends the next step;
 * - a step delivered twice finds the job past its step and does nothing (a redelivery resends the next
 *   step's message, in case the first delivery died between its checkpoint and its send); a step that
 *   fails is delivered again and starts over from the same cursor: rewriting is idempotent (a log whose
 *   cost is already right is not written);
 * - one job runs per workspace at a time: a lock item, claimed by a conditional put, whose lease every
 *   checkpoint extends; a second job is a 409 until the first ends (or its lease runs out after a crash).
 */
export const COST_RECOMPUTE_QUEUE = { name: 'cost-recompute-jobs', maxReceiveCount: 3, timeoutSeconds: 300 };

/** What one step may do before it hands over to the next (well inside the worker's timeout). */
export const STEP_MAX_LOGS = 20_000;
export const STEP_MAX_MS = 60_000;

/** How long the lock holds without a checkpoint: every receive of a step timing out, plus a margin. */
const LEASE_MS =
  (COST_RECOMPUTE_QUEUE.maxReceiveCount * 6 * COST_RECOMPUTE_QUEUE.timeoutSeconds + 300) * 1000;

/** Logs rewritten at once within a step. */
const REWRITES_IN_FLIGHT = 8;

export interface RecomputeQuery {
  filter_group: FilterGroup | null;
  q: string | null;
  /** Inclusive bounds on the logs' request_start_time, epoch ms. */
  start: number;
  end: number;
}

export interface RecomputeCounts {
  /** Logs that matched and were examined so far. */
  matched: number;
  /** Logs whose cost changed and was rewritten. */
  rewritten: number;
  /** Logs whose cost was already the one computed now. */
  unchanged: number;
  /** Logs priced by their client, left as they are. */
  client_priced: number;
}

type JobStatus = 'running' | 'done' | 'failed';

export interface RecomputeJob {
  id: string;
  workspaceId: number;
  status: JobStatus;
  query: RecomputeQuery;
  counts: RecomputeCounts;
  step: number;
  cursor: { start: number; id: number } | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  leaseUntil: number;
}

const jobKey = (workspaceId: number, jobId: string) => ({ PK: `W#${workspaceId}#CRJ#${jobId}`, SK: 'CRJ' });
const lockKey = (workspaceId: number) => ({ PK: `W#${workspaceId}#CRJ`, SK: 'RUNNING' });

const NO_COUNTS: RecomputeCounts = { matched: 0, rewritten: 0, unchanged: 0, client_priced: 0 };

export const recomputeMessageSchema = z.object({
  v: z.literal(1),
  type: z.literal('cost.recompute'),
  workspaceId: z.int().check(z.positive()),
  jobId: z.string().check(z.minLength(1)),
  step: z.int().check(z.gte(0)),
});
type RecomputeMessage = z.infer<typeof recomputeMessageSchema>;

const sendStep = (workspaceId: number, jobId: string, step: number) =>
  sendJob(COST_RECOMPUTE_QUEUE.name, {
    v: 1,
    type: 'cost.recompute',
    workspaceId,
    jobId,
    step,
  } satisfies RecomputeMessage);

/** Starts a job: claims the workspace's lock (409 when a job holds it), records the job, sends its first step. */
export async function startRecompute(workspaceId: number, query: RecomputeQuery): Promise<RecomputeJob> {
  const now = Date.now();
  const job: RecomputeJob = {
    id: randomUUID(),
    workspaceId,
    status: 'running',
    query,
    counts: NO_COUNTS,
    step: 0,
    cursor: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    leaseUntil: now + LEASE_MS,
  };
  const locked = await unlessConditionFails(
    dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: { ...lockKey(workspaceId), jobId: job.id, leaseUntil: job.leaseUntil },
        ConditionExpression: 'attribute_not_exists(PK) OR leaseUntil < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
  if (!locked) {
    const lock = await getItem(lockKey(workspaceId));
    throw conflict(
      `A cost recompute is already running in this workspace${lock ? ` (job ${String(lock.jobId)})` : ''}; wait for it to end`,
      'recompute_running',
    );
  }
  await dynamo.send(new PutCommand({ TableName: table(), Item: { ...jobKey(workspaceId, job.id), ...job } }));
  try {
    await sendStep(workspaceId, job.id, 0);
  } catch (error) {
    await endJob(job, 'failed', job.counts, 'The job could not be queued; please try again');
    throw error;
  }
  return job;
}

async function findRecompute(workspaceId: number, jobId: string): Promise<RecomputeJob | undefined> {
  const item = await getItem(jobKey(workspaceId, jobId));
  if (!item) return undefined;
  const { PK: _pk, SK: _sk, ...job } = item;
  return job as unknown as RecomputeJob;
}

export async function getRecompute(workspaceId: number, jobId: string): Promise<RecomputeJob> {
  const job = await findRecompute(workspaceId, jobId);
  if (!job) throw notFound(`Cost recompute job ${jobId} not found`);
  return job;
}

/** The job as GET answers it: a running job whose lease ran out has failed (its worker died for good). */
export function toRecomputeView(job: RecomputeJob, now = Date.now()) {
  const stale = job.status === 'running' && job.leaseUntil < now;
  return {
    id: job.id,
    status: stale ? ('failed' as const) : job.status,
    start_time: toIso(job.query.start),
    end_time: toIso(job.query.end),
    filter_group: job.query.filter_group,
    q: job.query.q,
    ...job.counts,
    error: stale ? 'The job stopped without finishing; start it again' : job.error,
    created_at: toIso(job.createdAt),
    updated_at: toIso(job.updatedAt),
    finished_at: job.finishedAt === null ? null : toIso(job.finishedAt),
  };
}

/** Ends the job (its status and counts, if it is still running) and frees the workspace's lock. */
async function endJob(
  job: RecomputeJob,
  status: 'done' | 'failed',
  counts: RecomputeCounts,
  error: string | null,
) {
  const now = Date.now();
  await updateItem(jobKey(job.workspaceId, job.id), {
    set: { status, counts, error, updatedAt: now, finishedAt: now },
    condition: '#status = :running AND #step = :step',
    values: { ':running': 'running', ':step': job.step },
  });
  await deleteItem(lockKey(job.workspaceId), 'jobId = :job', { ':job': job.id });
}

/** The logs of the query in time order, from after the cursor. */
function logsFrom(job: RecomputeJob): AsyncIterable<RecordBatch> {
  const from = job.cursor?.start ?? job.query.start;
  const range = {
    field: 'request_start_time',
    operator: 'between',
    value: [toIso(from), toIso(job.query.end)],
  };
  const filterGroup: FilterGroup = {
    logic: 'AND',
    filters: [range, ...(job.query.filter_group ? [job.query.filter_group] : [])],
  };
  return matchingRequestLogs(
    job.workspaceId,
    { filter_group: filterGroup, q: job.query.q, sort_by: 'request_start_time', sort_order: 'asc' },
    Number.POSITIVE_INFINITY,
  );
}
type RecordBatch = RequestLogRecord[];

const afterCursor = (cursor: RecomputeJob['cursor'], record: RequestLogRecord) =>
  !cursor ||
  record.request_start_time > cursor.start ||
  (record.request_start_time === cursor.start && record.id > cursor.id);

const sameCost = (a: CostBreakdown | undefined, b: CostBreakdown) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * A log with its cost computed now; the log itself when it is priced by its client or its cost is
 * already right (then nothing is written).
 */
async function repriced(
  record: RequestLogRecord,
  overrides: ReadonlyMap<string, ModelPriceOverride>,
): Promise<RequestLogRecord> {
  if (isClientPriced(record)) return record;
  const cost = await costOf(pricedRequestOf(record), async () => overrides);
  if (sameCost(record.cost, cost) && record.price === cost.total && record.usage) return record;
  return { ...record, usage: usageOf(record), cost, price: cost.total };
}

/** Rewrites one matching log's cost when it changed, and counts what happened to it. */
async function reprice(
  job: RecomputeJob,
  record: RequestLogRecord,
  overrides: ReadonlyMap<string, ModelPriceOverride>,
  counts: RecomputeCounts,
): Promise<void> {
  counts.matched++;
  if (isClientPriced(record)) {
    counts.client_priced++;
    return;
  }
  const next = await repriced(record, overrides);
  if (next === record) {
    counts.unchanged++;
    return;
  }
  // The cost depends only on fields a log never changes after it is written (model, provider, usage,
  // start time); the rewrite applies it to the log as it is now, so a concurrent score or metadata
  // update is kept.
  await updateRequestLog(job.workspaceId, record.id, (now) =>
    isClientPriced(now) ? now : { ...now, usage: next.usage, cost: next.cost, price: next.price },
  );
  counts.rewritten++;
}

/** One step of a job (the worker's work for one message). */
export async function runRecomputeStep(
  message: RecomputeMessage,
  redelivered: boolean,
  limits = { maxLogs: STEP_MAX_LOGS, maxMs: STEP_MAX_MS },
): Promise<void> {
  const job = await findRecompute(message.workspaceId, message.jobId);
  if (job?.status !== 'running') return;
  if (job.step !== message.step) {
    // A copy of this step already ran; this delivery may be the retry of one that died before sending on.
    if (job.step > message.step && redelivered) await sendStep(job.workspaceId, job.id, job.step);
    return;
  }
  const started = Date.now();
  const overrides = await listOverrides(job.workspaceId);
  const counts = { ...job.counts };
  let cursor: RecomputeJob['cursor'];
  let examined = 0;
  for await (const batch of logsFrom(job)) {
    let records = batch.filter((record) => afterCursor(job.cursor, record));
    while (records.length > 0) {
      const slice = records.slice(0, limits.maxLogs - examined);
      records = records.slice(slice.length);
      await forEachLimited(slice, REWRITES_IN_FLIGHT, (record) => reprice(job, record, overrides, counts));
      examined += slice.length;
      const last = slice.at(-1)!;
      cursor = { start: last.request_start_time, id: last.id };
      if (examined >= limits.maxLogs || Date.now() - started >= limits.maxMs) {
        await checkpoint(job, counts, cursor);
        return;
      }
    }
  }
  await endJob(job, 'done', counts, null);
  logger.info('Cost recompute done', { ...counts });
}

/** Records the step's progress (only if no other delivery did), extends the lock and sends the next step. */
async function checkpoint(job: RecomputeJob, counts: RecomputeCounts, cursor: RecomputeJob['cursor']) {
  const now = Date.now();
  const leaseUntil = now + LEASE_MS;
  const advanced = await updateItem(jobKey(job.workspaceId, job.id), {
    set: { step: job.step + 1, cursor, counts, updatedAt: now, leaseUntil },
    condition: '#status = :running AND #step = :step',
    values: { ':running': 'running', ':step': job.step },
  });
  if (!advanced) return;
  await updateItem(lockKey(job.workspaceId), {
    set: { leaseUntil },
    condition: '#jobId = :job',
    values: { ':job': job.id },
  });
  await sendStep(job.workspaceId, job.id, job.step + 1);
}

/** The job failed for good (its last delivery failed): recorded, and the workspace's lock freed. */
export async function failRecompute(message: RecomputeMessage, reason: string): Promise<void> {
  const job = await findRecompute(message.workspaceId, message.jobId);
  if (job?.status === 'running' && job.step === message.step) await endJob(job, 'failed', job.counts, reason);
}

/** Whether a log's cost came from its client, which a recompute never changes (logs from before costs too). */
const isClientPriced = (record: RequestLogRecord): boolean =>
  record.cost ? record.cost.source === 'client' : record.price > 0;

const pricedRequestOf = (record: RequestLogRecord): PricedRequest => ({
  model: record.model,
  provider: record.provider,
  usage: usageOf(record),
  price: isClientPriced(record) ? record.price : 0,
  startedAt: record.request_start_time,
});
