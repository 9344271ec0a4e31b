import { forEachLimited } from '#shared/platform/concurrency.ts';
import { unlessConditionFails } from '#shared/platform/dynamo.ts';
import { AppError, validationError } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import type { JsonObject } from '#shared/platform/json.ts';
import type { VersionRecord } from '#shared/prompts/records.ts';
import { newRequestLog, type RawBody, resolveLogReferences } from '#shared/request-logs/log-request.ts';
import { type LogRequestBody, logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { putRequestLog, requestLogsByIds } from '#shared/request-logs/repository.ts';
import { refuseClosedTraces } from './closures.ts';
import { requestLogIdOf } from './links.ts';
import {
  claimSpanLog,
  putSpans,
  type SpanDetail,
  type SpanRecord,
  type StoredSpan,
  storedSpanRecords,
} from './repository.ts';
import type { RequestLogSummary, SpanInput, SpansBulkBody } from './schemas.ts';
import { nanosToIso } from './span-time.ts';

/** What POST /spans-bulk answers (201). */
export interface SpansBulkResult {
  success: true;
  spans: { span_id: string; trace_id: string; name: string; request_log_id: number | null }[];
  /** The request logs this call created from `log_request`. */
  request_logs: { id: number; span_id: string; trace_id: string }[];
}

/** Fields of a span the API defines; anything else a client sends is kept under the detail's `extra`. */
const SPAN_FIELDS = new Set([
  'name',
  'context',
  'kind',
  'parent_id',
  'start_time',
  'end_time',
  'status',
  'attributes',
  'events',
  'links',
  'resource',
  'log_request',
]);

/** Request logs created (and prompts resolved) a few at a time. */
const LOGS_IN_FLIGHT = 8;

interface PlannedSpan {
  index: number;
  span: SpanInput;
  raw: JsonObject;
  /** The validated `log_request`, with the span's times filling in missing request times. */
  log?: { body: LogRequestBody; raw: RawBody; prompt?: VersionRecord };
}

/**
 * Stores a batch of spans. Everything that can refuse the call runs before the first write: the schema,
 * each `log_request` (as POST /log-request validates it) and the prompt it names. Then request logs are
 * created for spans with `log_request` that were not stored with a log already, links named by attributes
 * are checked against the workspace's logs, and the spans are written.
 *
 * Sending a span again (same trace and span id) replaces it: no second span, and no second request log
 * when the stored span already links one. A span sent twice in one call counts once (the last copy).
 */
export async function createSpansBulk(
  workspaceId: number,
  body: SpansBulkBody,
  rawBody: JsonObject,
): Promise<SpansBulkResult> {
  const rawSpans = rawBody.spans as JsonObject[];
  const lastIndexOf = new Map<string, number>();
  for (const [index, span] of body.spans.entries()) lastIndexOf.set(spanRef(span), index);
  const planned: PlannedSpan[] = [...lastIndexOf.values()].map((index) => ({
    index,
    span: body.spans[index]!,
    raw: rawSpans[index]!,
  }));

  await refuseClosedTraces(workspaceId, [...new Set(planned.map((plan) => plan.span.context.trace_id))]);

  for (const plan of planned) {
    const rawLog = plan.raw.log_request;
    if (rawLog != null) plan.log = validateLog(plan, rawLog as JsonObject);
  }

  // A span stored before with its log keeps that log: a retry must not log the request twice.
  const withLog = planned.filter((plan) => plan.log);
  const stored = await storedSpanRecords(
    workspaceId,
    withLog.map((plan) => ({ trace_id: plan.span.context.trace_id, span_id: plan.span.context.span_id })),
  );
  const links = new Map<PlannedSpan, { id: number; summary: RequestLogSummary | null }>();
  const toCreate: PlannedSpan[] = [];
  for (const plan of withLog) {
    const before = stored.get(spanRef(plan.span));
    if (before?.request_log_id != null)
      links.set(plan, { id: before.request_log_id, summary: before.request_log });
    else toCreate.push(plan);
  }
  await forEachLimited(toCreate, LOGS_IN_FLIGHT, async (plan) => {
    plan.log!.prompt = await resolvePrompt(workspaceId, plan);
  });

  await linkNamedLogs(
    workspaceId,
    planned.filter((plan) => !plan.log),
    links,
  );

  const created: SpansBulkResult['request_logs'] = [];
  await forEachLimited(toCreate, LOGS_IN_FLIGHT, async (plan) => {
    const log = plan.log!;
    const { trace_id, span_id } = plan.span.context;
    const id = await claimSpanLog(workspaceId, trace_id, span_id, await nextId('request_log'));
    const record = await newRequestLog(id, workspaceId, log.body, log.raw, log.prompt);
    // The condition fails when another call claimed this span's log and wrote it first: that log is this span's.
    await unlessConditionFails(putRequestLog(record));
    links.set(plan, { id: record.id, summary: summarize(record) });
    created.push({ id: record.id, span_id: plan.span.context.span_id, trace_id: plan.span.context.trace_id });
  });

  const spans: StoredSpan[] = planned.map((plan) => {
    const link = links.get(plan);
    return {
      record: toRecord(plan.span, link?.id ?? null, link?.summary ?? null),
      detailJson: JSON.stringify(toDetail(plan.raw)),
    };
  });
  await putSpans(workspaceId, spans);

  created.sort((a, b) => a.id - b.id);
  return {
    success: true,
    spans: spans.map(({ record }) => ({
      span_id: record.span_id,
      trace_id: record.trace_id,
      name: record.name,
      request_log_id: record.request_log_id,
    })),
    request_logs: created,
  };
}

/** The key `storedSpanRecords` answers by. */
const spanRef = (span: { context: { trace_id: string; span_id: string } }) =>
  `${span.context.trace_id}/${span.context.span_id}`;

/**
 * A span's `log_request` as POST /log-request validates it. Request times it leaves out (or sends as null)
 * are the span's start and end; the trace and span it names (extra fields of a log, as /track-request's
 * `span_id`) are the span's own, so the log reads back with the trace it was made in.
 */
function validateLog(plan: PlannedSpan, rawLog: JsonObject): NonNullable<PlannedSpan['log']> {
  const raw: RawBody = { ...rawLog };
  raw.request_start_time ??= nanosToIso(plan.span.start_time);
  raw.request_end_time ??= nanosToIso(plan.span.end_time);
  raw.trace_id = plan.span.context.trace_id;
  raw.span_id = plan.span.context.span_id;
  const result = logRequestBodySchema.safeParse(raw);
  if (!result.success) throw validationError(result.error, ['body', 'spans', plan.index, 'log_request']);
  return { body: result.data, raw };
}

/** The prompt a span's log names (its group checked too); a 422 about it says which span. */
async function resolvePrompt(workspaceId: number, plan: PlannedSpan): Promise<VersionRecord | undefined> {
  try {
    const { body } = plan.log!;
    return await resolveLogReferences(workspaceId, body);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 422 || !error.detail) throw error;
    const where = ['body', 'spans', plan.index, 'log_request'];
    const detail = error.detail.map((item) => ({
      ...item,
      loc: [...where, ...(item.loc[0] === 'body' ? item.loc.slice(1) : item.loc)],
    }));
    throw new AppError(422, error.code, `spans.${plan.index}.log_request: ${error.message}`, detail);
  }
}

/**
 * Links spans whose attributes name a request log (links.ts) to that log when it exists in the
 * workspace. An unknown id, or one of another workspace, links nothing and says nothing.
 */
async function linkNamedLogs(
  workspaceId: number,
  plans: readonly PlannedSpan[],
  links: Map<PlannedSpan, { id: number; summary: RequestLogSummary | null }>,
): Promise<void> {
  const named = new Map<PlannedSpan, number>();
  for (const plan of plans) {
    const id = requestLogIdOf(plan.span.attributes);
    if (id !== undefined) named.set(plan, id);
  }
  if (named.size === 0) return;
  const summaries = new Map<number, RequestLogSummary>();
  for await (const records of requestLogsByIds(workspaceId, [...new Set(named.values())])) {
    for (const record of records) summaries.set(record.id, summarize(record));
  }
  for (const [plan, id] of named) {
    const summary = summaries.get(id);
    if (summary) links.set(plan, { id, summary });
  }
}

/** The short view of a log a span keeps, taken when the span is linked. */
export function summarize(record: RequestLogRecord): RequestLogSummary {
  return {
    id: record.id,
    provider: record.provider,
    model: record.model,
    status: record.status,
    prompt_name: record.prompt_name,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    price: record.price,
    latency_ms: record.request_end_time - record.request_start_time,
  };
}

function toRecord(
  span: SpanInput,
  requestLogId: number | null,
  summary: RequestLogSummary | null,
): SpanRecord {
  return {
    trace_id: span.context.trace_id,
    span_id: span.context.span_id,
    parent_id: span.parent_id,
    name: span.name,
    kind: span.kind,
    start_ns: span.start_time.toString(),
    end_ns: span.end_time.toString(),
    status: { status_code: span.status.status_code, description: span.status.description ?? null },
    trace_state: span.context.trace_state ?? '',
    request_log_id: requestLogId,
    request_log: summary,
  };
}

/** The detail as sent (values untouched), with fields the API does not define kept under `extra`. */
function toDetail(raw: JsonObject): SpanDetail {
  const extra = Object.fromEntries(Object.entries(raw).filter(([name]) => !SPAN_FIELDS.has(name)));
  return {
    attributes: raw.attributes as JsonObject,
    events: (raw.events as unknown[] | null) ?? [],
    links: (raw.links as unknown[] | null) ?? [],
    resource: (raw.resource as JsonObject | null) ?? null,
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
