import { intParam } from '#shared/platform/schemas.ts';
import { queryTimestampSchema } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { durationMs, MAX_EPOCH_NS, nanosToIso } from './span-time.ts';
import { queryTraceSummaries, type TraceListPosition } from './trace-index.ts';

/**
 * GET /api/public/v2/traces: the workspace's traces, newest start first, a page at a time after the
 * `next_cursor` of the previous page (one Query of the trace index, trace-index.ts; a trace stored
 * meanwhile never shifts the pages), optionally within a window of start times.
 */
export const TRACE_LIST_MAX = 100;

/** `<start ns>-<trace id>`: where the previous page ended. */
const cursorPattern = /^(\d{1,21})-([0-9a-f]{1,64})$/;

const NS_PER_MS = 1_000_000n;

export const traceListQuerySchema = z
  .object({
    per_page: z._default(intParam(1, TRACE_LIST_MAX), 20),
    cursor: z
      .optional(z.string().check(z.regex(cursorPattern, 'must be the next_cursor of a previous page')))
      .clone()
      .register(z.globalRegistry, {
        description: 'The `next_cursor` of the previous page: this page continues after its last trace.',
      }),
    from: z.optional(queryTimestampSchema).clone().register(z.globalRegistry, {
      description: 'Only traces that start at or after this time (ISO 8601, epoch seconds or milliseconds).',
    }),
    to: z.optional(queryTimestampSchema).clone().register(z.globalRegistry, {
      description: 'Only traces that start at or before this time (inclusive, to the millisecond).',
    }),
  })
  .check(
    z.superRefine((query, ctx) => {
      if (query.from !== undefined && query.to !== undefined && query.from > query.to)
        ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
    }),
  );

export const traceListSchema = z.object({
  success: z.literal(true),
  traces: z.array(
    z
      .object({
        trace_id: z.string(),
        name: z.nullable(z.string()).clone().register(z.globalRegistry, {
          description:
            "The root span's name (the earliest span without a parent); null until a root has arrived.",
        }),
        start_time: z.string(),
        end_time: z.string(),
        duration_ms: z.number(),
        span_count: z.int(),
        has_error: z.boolean().clone().register(z.globalRegistry, {
          description: 'Some span of the trace has status `StatusCode.ERROR`.',
        }),
        error_count: z.int(),
        request_log_count: z.int().clone().register(z.globalRegistry, {
          description: 'Spans linked to a request log.',
        }),
        cost: z.number().clone().register(z.globalRegistry, {
          description: 'The summed `price` of the linked request logs, as each was when linked.',
        }),
      })
      .clone()
      .register(z.globalRegistry, { id: 'TraceListItem' }),
  ),
  next_cursor: z
    .nullable(z.string())
    .clone()
    .register(z.globalRegistry, { description: 'null: this is the last page.' }),
});

export async function listTraces(workspaceId: number, query: z.output<typeof traceListQuerySchema>) {
  const match = query.cursor ? cursorPattern.exec(query.cursor) : null;
  const after: TraceListPosition | undefined = match ? { startNs: match[1]!, traceId: match[2]! } : undefined;
  const window = {
    fromNs: query.from === undefined ? 0n : BigInt(query.from) * NS_PER_MS,
    toNs: query.to === undefined ? MAX_EPOCH_NS : BigInt(query.to) * NS_PER_MS + NS_PER_MS - 1n,
  };
  const { traces, next } = await queryTraceSummaries(workspaceId, query.per_page, window, after);
  return {
    success: true as const,
    traces: traces.map((trace) => {
      const start = BigInt(trace.startNs);
      const end = BigInt(trace.endNs);
      return {
        trace_id: trace.traceId,
        name: trace.rootName,
        start_time: nanosToIso(start),
        end_time: nanosToIso(end),
        duration_ms: durationMs(start, end),
        span_count: trace.spanCount,
        has_error: trace.errorCount > 0,
        error_count: trace.errorCount,
        request_log_count: trace.logCount,
        cost: trace.cost,
      };
    }),
    next_cursor: next ? `${BigInt(next.startNs)}-${next.traceId}` : null,
  };
}
