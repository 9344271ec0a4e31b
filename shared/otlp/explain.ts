import { jsonBytes, PLAIN_ANSWER_BUDGET_BYTES } from '#shared/platform/answer-limit.ts';
import { notFound } from '#shared/platform/errors.ts';
import type { JsonObject } from '#shared/platform/json.ts';
import * as z from '#shared/platform/zod.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { requestLogsByIds } from '#shared/request-logs/repository.ts';
import { MAX_TRACE_SPANS } from '#shared/traces/read.ts';
import { querySpans, readSpanDetails, type SpanDetail, type SpanItem } from '#shared/traces/repository.ts';
import { mapSpan, type SpanMapping } from './mapping/index.ts';
import type { OtlpSpan } from './spans.ts';

/**
 * GET /api/public/v2/traces/{trace_id}/mapping: for each span, which convention matched, whether it is a
 * model call (or why not), which attribute became which request-log field, and which attributes were
 * kept only as raw span attributes. The mapping is run again on the stored span, with the rules of the
 * running version (the same rules the ingest ran, unless the service was updated since).
 */

const fieldSource = z.object({ field: z.string(), from: z.array(z.string()), convention: z.string() });

/** The answer of GET /traces/{trace_id}/mapping. */
export const traceMappingResponseSchema = z.object({
  success: z.literal(true),
  trace_id: z.string(),
  truncated: z.boolean(),
  spans: z.array(
    z.object({
      span_id: z.string(),
      name: z.string(),
      source: z.enum(['otlp', 'spans-bulk']),
      convention: z.nullable(z.string()),
      model_call: z.boolean(),
      reason: z.nullable(z.string()),
      request_log_id: z.nullable(z.int()),
      fields: z.array(fieldSource),
      raw_attributes: z.array(z.string()),
      notes: z.array(z.string()),
    }),
  ),
});

/** Details read for one answer at most (S3 details included): a trace of huge spans is cut. */
const DETAIL_READ_BUDGET_BYTES = 64 * 1024 * 1024;

export interface SpanMappingView extends Omit<SpanMapping, 'call'> {
  span_id: string;
  name: string;
  /** `otlp` (POST /v1/traces) or `spans-bulk` (the PromptLayer SDK's spans, not mapped: their logs come with them). */
  source: 'otlp' | 'spans-bulk';
  request_log_id: number | null;
}

export async function explainTrace(workspaceId: number, traceId: string) {
  const { spans: items, more } = await querySpans(workspaceId, traceId, MAX_TRACE_SPANS);
  if (items.length === 0) throw notFound(`Trace ${traceId} not found`);
  items.sort(
    (a, b) =>
      Number(BigInt(a.record.start_ns) - BigInt(b.record.start_ns)) ||
      a.record.span_id.localeCompare(b.record.span_id),
  );

  const readable: SpanItem[] = [];
  let readBytes = 0;
  for (const item of items) {
    readBytes += item.detailBytes;
    if (readBytes > DETAIL_READ_BUDGET_BYTES) break;
    readable.push(item);
  }
  const details = await readSpanDetails(readable);
  const unpriced = await unpricedLogs(workspaceId, readable);
  const spans: SpanMappingView[] = [];
  let usedBytes = 0;
  for (const [i, item] of readable.entries()) {
    const view = explainSpan(item, details[i]!);
    const costNote = view.source === 'otlp' ? costNoteOf(view, unpriced) : undefined;
    if (costNote) view.notes = [...view.notes, costNote];
    usedBytes += jsonBytes(view);
    if (usedBytes > PLAIN_ANSWER_BUDGET_BYTES) break;
    spans.push(view);
  }
  return { success: true as const, trace_id: traceId, truncated: more || spans.length < items.length, spans };
}

function explainSpan(item: SpanItem, detail: SpanDetail): SpanMappingView {
  const { record } = item;
  const base = { span_id: record.span_id, name: record.name, request_log_id: record.request_log_id };
  if (detail.extra?.source !== 'otlp') {
    return {
      ...base,
      source: 'spans-bulk',
      convention: null,
      model_call: record.request_log_id !== null,
      reason:
        'sent to /spans-bulk: its request log comes from log_request or the attributes naming a log, not from a convention',
      fields: [],
      raw_attributes: Object.keys(detail.attributes),
      notes: [],
    };
  }
  const { call: _call, ...mapping } = mapSpan(toOtlpSpan(item, detail));
  return { ...base, source: 'otlp', ...mapping };
}

/** The linked logs whose cost is 0 (read whole: their cost says why), by id. */
async function unpricedLogs(workspaceId: number, items: readonly SpanItem[]) {
  const ids = items.flatMap(({ record }) =>
    record.request_log_id !== null && record.request_log?.price === 0 ? [record.request_log_id] : [],
  );
  const logs = new Map<number, RequestLogRecord>();
  for await (const records of requestLogsByIds(workspaceId, ids))
    for (const record of records) logs.set(record.id, record);
  return logs;
}

/** "Why is my cost 0?" for a model-call span: no log, no usage, or no price for its model. */
function costNoteOf(view: SpanMappingView, unpriced: ReadonlyMap<number, RequestLogRecord>) {
  if (!view.model_call) return undefined;
  if (view.request_log_id === null)
    return 'no request log: the log this span maps to failed validation when it was sent (the export answer said why)';
  const log = unpriced.get(view.request_log_id);
  if (!log) return undefined;
  if (log.cost?.source === 'unknown_model')
    return `cost 0: no price is known for model "${log.model}" of provider "${log.provider}" (set a workspace price override, or send the cost on the span)`;
  if (log.input_tokens === 0 && log.output_tokens === 0) return 'cost 0: the span carries no token usage';
  return undefined;
}

const STATUS_CODES: Record<string, number> = {
  'StatusCode.UNSET': 0,
  'StatusCode.OK': 1,
  'StatusCode.ERROR': 2,
};

/** The span as the ingest read it, from its stored summary and detail. */
function toOtlpSpan(item: SpanItem, detail: SpanDetail): OtlpSpan {
  const { record } = item;
  const resource = (detail.resource?.attributes ?? {}) as JsonObject;
  return {
    traceId: record.trace_id,
    spanId: record.span_id,
    parentSpanId: record.parent_id,
    traceState: record.trace_state,
    name: record.name,
    kind: 0,
    startNs: BigInt(record.start_ns),
    endNs: BigInt(record.end_ns),
    attributes: detail.attributes as JsonObject,
    events: detail.events as OtlpSpan['events'],
    links: detail.links as OtlpSpan['links'],
    status: { code: STATUS_CODES[record.status.status_code] ?? 0, message: record.status.description ?? '' },
    resource,
    scope: (detail.extra?.scope ?? { name: '', version: '' }) as OtlpSpan['scope'],
  };
}
