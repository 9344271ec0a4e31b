import { roundUsd } from '#shared/costs/pricing.ts';
import { notFound } from '#shared/platform/errors.ts';
import { type Page, paginate, toPage } from '#shared/platform/pagination.ts';
import { pageOf } from '#shared/platform/response-schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { isObject, without } from '#shared/request-logs/providers/blocks.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { getRequestLog, requestLogsByIds } from '#shared/request-logs/repository.ts';
import { replayIdsOf } from './links.ts';
import { replayLogViewSchema, toReplayLogView } from './views.ts';

/**
 * GET /api/public/v2/requests/{id}/replays: a log's replays, newest first, each with how it differs from
 * the original: whether the output changed (text, other blocks and tool calls; ids aside, which differ on
 * every call), and the cost and latency deltas (replay minus original). A RUNNING replay has no output
 * yet: its output_changed is null.
 */
export const REPLAYS_MAX_PER_PAGE = 100;
export const REPLAYS_DEFAULT_PER_PAGE = 25;

export const replayDiffSchema = z.object({
  output_changed: z.nullable(z.boolean()),
  status_changed: z.boolean(),
  cost_delta: z.number().clone().register(z.globalRegistry, { description: 'USD, replay minus original' }),
  latency_delta_ms: z.number().clone().register(z.globalRegistry, { description: 'Replay minus original' }),
});

export const replaysPageSchema = z.extend(
  pageOf(z.extend(replayLogViewSchema, { created_at: z.iso.datetime(), diff: replayDiffSchema })),
  { success: z.literal(true), request_id: z.int() },
);

export async function listReplays(workspaceId: number, requestId: number, page: number, perPage: number) {
  const [original, ids] = await Promise.all([
    getRequestLog(workspaceId, requestId),
    replayIdsOf(workspaceId, requestId),
  ]);
  if (!original) throw notFound(`Request ${requestId} not found`);
  const slice: Page<number> = paginate(ids, page, perPage);
  const byId = new Map<number, RequestLogRecord>();
  for await (const records of requestLogsByIds(workspaceId, slice.items))
    for (const record of records) byId.set(record.id, record);
  // A link whose log was never written (a crash between the two writes) is left out.
  const items = slice.items.flatMap((id) => {
    const replay = byId.get(id);
    return replay
      ? [
          {
            ...toReplayLogView(replay),
            created_at: new Date(replay.created_at).toISOString(),
            diff: diffOf(original, replay),
          },
        ]
      : [];
  });
  return { success: true as const, request_id: requestId, ...toPage(items, page, perPage, ids.length) };
}

export function diffOf(
  original: RequestLogRecord,
  replay: RequestLogRecord,
): z.infer<typeof replayDiffSchema> {
  const latency = (record: RequestLogRecord) => record.request_end_time - record.request_start_time;
  return {
    output_changed:
      replay.status === 'RUNNING'
        ? null
        : JSON.stringify(comparable(original.output)) !== JSON.stringify(comparable(replay.output)),
    status_changed: replay.status !== original.status,
    cost_delta: roundUsd(replay.price - original.price),
    latency_delta_ms: latency(replay) - latency(original),
  };
}

/** Block fields that differ between two calls giving the same answer. */
const PER_CALL_FIELDS = ['id', 'signature', 'annotations'];

/** The output as compared: each message's blocks and tool calls (name and arguments), without per-call ids. */
function comparable(output: Record<string, unknown>): unknown {
  const blocks = (content: unknown) =>
    (Array.isArray(content) ? content : []).map((block) =>
      isObject(block) ? without(block, PER_CALL_FIELDS) : block,
    );
  if (output.type !== 'chat') return blocks(output.content);
  const messages = Array.isArray(output.messages) ? output.messages.filter(isObject) : [];
  return messages.map((message) => ({
    content: blocks(message.content),
    tool_calls: (Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []).map(
      (call) => call.function ?? null,
    ),
  }));
}
