import { forEachLimited } from '#shared/platform/concurrency.ts';
import { unlessConditionFails } from '#shared/platform/dynamo.ts';
import { AppError } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import type { JsonObject } from '#shared/platform/json.ts';
import { findLoggedPromptVersion } from '#shared/prompts/lookup.ts';
import type { VersionRecord } from '#shared/prompts/records.ts';
import { newRequestLog, type RawBody } from '#shared/request-logs/log-request.ts';
import { type LogRequestBody, logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';
import { putRequestLog } from '#shared/request-logs/repository.ts';
import { closeTraces, refuseClosedTraces } from '#shared/traces/closures.ts';
import { summarize } from '#shared/traces/ingest.ts';
import {
  claimSpanLog,
  putSpans,
  type SpanRecord,
  type StoredSpan,
  storedSpanRecords,
} from '#shared/traces/repository.ts';
import type { RequestLogSummary } from '#shared/traces/schemas.ts';
import { nanosToIso } from '#shared/traces/span-time.ts';
import { type ModelCall, mapSpan } from './mapping/index.ts';
import { type OtlpSpan, readSpans } from './spans.ts';

/**
 * The write path of POST /v1/traces, in the request (DESIGN.md 14: mapping in the request makes the logs
 * visible when the exporter's call returns, and a batch is small enough for one Lambda): spans checked
 * one by one (refused ones counted, never dropped silently), closed traces refused as a whole (409),
 * each model-call span turned into a request log by log-request's own code (`newRequestLog`, the same
 * validation, the same record, so cost and usage rules apply as they do to POST /log-request), then every
 * span stored under its trace. Idempotent: a span is keyed by trace and span id, and its log id is
 * claimed before the log is written, so a redelivered batch stores and logs each span once.
 */

/** Spans one export may carry (exporters send 512 by default); more is a 413 asking for smaller batches. */
export const MAX_SPANS_PER_EXPORT = 10_000;

/**
 * The most span detail one export may store, its resource and scope counted once per span (a large
 * resource on thousands of spans would otherwise take gigabytes of memory and S3): more is a 413.
 */
export const MAX_EXPORT_STORED_BYTES = 128 * 1024 * 1024;

/** Request logs written (and prompts resolved) a few at a time. */
const LOGS_IN_FLIGHT = 16;

export interface IngestResult {
  accepted: number;
  rejected: number;
  /** Why spans were refused, and warnings about spans stored without their log: the answer's message. */
  problems: string[];
  request_logs: number;
}

export async function ingestOtlp(
  workspaceId: number,
  request: JsonObject,
  options: { closeAfter: boolean },
): Promise<IngestResult> {
  const { spans: read, rejected, storedBytes } = readSpans(request, BigInt(Date.now()) * 1_000_000n);
  if (read.length > MAX_SPANS_PER_EXPORT) {
    throw new AppError(
      413,
      'payload_too_large',
      `${read.length} spans in one export: at most ${MAX_SPANS_PER_EXPORT}; set a smaller maxExportBatchSize`,
    );
  }
  if (storedBytes > MAX_EXPORT_STORED_BYTES) {
    throw new AppError(
      413,
      'payload_too_large',
      `The export's spans would store ${storedBytes} bytes with their resource and scope, over ${MAX_EXPORT_STORED_BYTES}; set a smaller maxExportBatchSize`,
    );
  }
  const problems = rejected.map(
    (span) => `span ${span.spanId || '?'} of trace ${span.traceId || '?'} refused: ${span.reason}`,
  );
  const bySpan = new Map<string, OtlpSpan>();
  for (const span of read) bySpan.set(`${span.traceId}/${span.spanId}`, span);
  const spans = [...bySpan.values()];

  const traceIds = [...new Set(spans.map((span) => span.traceId))];
  await refuseClosedTraces(workspaceId, traceIds);

  const planned = spans.map((span) => ({ span, mapping: mapSpan(span) }));
  const calls = planned.filter((plan) => plan.mapping.call);
  const stored = await storedSpanRecords(
    workspaceId,
    calls.map(({ span }) => ({ trace_id: span.traceId, span_id: span.spanId })),
  );
  // Spans that are not model calls need no log: written while the logs are, hiding most of the batch.
  const toItem = (span: OtlpSpan, link?: { id: number; summary: RequestLogSummary | null }): StoredSpan => ({
    record: toRecord(span, link),
    detailJson: JSON.stringify(toDetail(span)),
  });
  const plainWrites = putSpans(
    workspaceId,
    planned.filter((plan) => !plan.mapping.call).map(({ span }) => toItem(span)),
  );
  const links = new Map<OtlpSpan, { id: number; summary: RequestLogSummary | null }>();
  let created = 0;
  const logWrites = forEachLimited(calls, LOGS_IN_FLIGHT, async ({ span, mapping }) => {
    const before = stored.get(`${span.traceId}/${span.spanId}`);
    if (before?.request_log_id != null) {
      links.set(span, { id: before.request_log_id, summary: before.request_log });
      return;
    }
    const log = await logOf(workspaceId, span, mapping.call!, problems);
    if (!log) return;
    const id = await claimSpanLog(workspaceId, span.traceId, span.spanId, await nextId('request_log'));
    const record = await newRequestLog(id, workspaceId, log.body, log.raw, log.prompt);
    // The condition fails when another delivery of this span claimed its log and wrote it first: that
    // log is this span's.
    if (await unlessConditionFails(putRequestLog(record))) created++;
    links.set(span, { id: record.id, summary: summarize(record) });
  });
  await Promise.all([plainWrites, logWrites]);
  // A model-call span is written after its log, so a stored span never names a log that is not there.
  await putSpans(
    workspaceId,
    calls.map(({ span }) => toItem(span, links.get(span))),
  );
  if (options.closeAfter) await closeTraces(workspaceId, traceIds);
  return { accepted: spans.length, rejected: rejected.length, problems, request_logs: created };
}

/**
 * The POST /log-request body of a model call, validated as that route validates it. A log the schema
 * refuses (or whose prompt is unknown) is reported, and the span is stored without it.
 */
async function logOf(
  workspaceId: number,
  span: OtlpSpan,
  call: ModelCall,
  problems: string[],
): Promise<{ body: LogRequestBody; raw: RawBody; prompt?: VersionRecord } | undefined> {
  const raw: RawBody = {
    provider: call.provider,
    model: call.model,
    api_type: call.api_type,
    function_name: span.name,
    input: call.input,
    output: call.output,
    parameters: call.parameters,
    tags: call.tags,
    metadata: call.metadata,
    // Totals in the usage's one meaning (input with cached tokens, output with reasoning tokens).
    input_tokens: call.usage.input_tokens,
    output_tokens: call.usage.output_tokens,
    // Their subsets, checked against them as every log's are (a subset over its total is refused).
    usage: {
      cache_read_tokens: call.usage.cache_read_tokens,
      cache_write_tokens: call.usage.cache_write_tokens,
      reasoning_tokens: call.usage.reasoning_tokens,
      input_audio_tokens: call.usage.input_audio_tokens,
      output_audio_tokens: call.usage.output_audio_tokens,
      input_image_tokens: call.usage.input_image_tokens,
    },
    // The span's own cost is the client's price; without one, the log path prices the usage.
    ...(call.cost !== undefined ? { price: call.cost } : {}),
    status: call.status,
    ...(call.status === 'ERROR' ? { error_type: 'PROVIDER_ERROR' } : {}),
    ...(call.status === 'WARNING' ? { error_type: 'UNKNOWN_ERROR' } : {}),
    error_message: call.status === 'SUCCESS' ? null : call.error_message?.slice(0, 1024),
    request_start_time: nanosToIso(span.startNs),
    request_end_time: nanosToIso(span.endNs),
    trace_id: span.traceId,
    span_id: span.spanId,
  };
  const result = logRequestBodySchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    problems.push(
      `span ${span.spanId} of trace ${span.traceId} stored without its request log: ${issue?.path.join('.')}: ${issue?.message}`,
    );
    return undefined;
  }
  let prompt: VersionRecord | undefined;
  if (call.prompt) {
    try {
      prompt = await findLoggedPromptVersion(workspaceId, {
        prompt_name: call.prompt.name,
        prompt_version_number: call.prompt.version,
        label: call.prompt.label,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      problems.push(
        `span ${span.spanId} of trace ${span.traceId}: its log links no prompt: ${error.message}`,
      );
    }
  }
  return { body: result.data, raw, prompt };
}

const KINDS = [
  'SpanKind.INTERNAL',
  'SpanKind.INTERNAL',
  'SpanKind.SERVER',
  'SpanKind.CLIENT',
  'SpanKind.PRODUCER',
  'SpanKind.CONSUMER',
];
const STATUSES = ['StatusCode.UNSET', 'StatusCode.OK', 'StatusCode.ERROR'];

function toRecord(
  span: OtlpSpan,
  link: { id: number; summary: RequestLogSummary | null } | undefined,
): SpanRecord {
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_id: span.parentSpanId,
    name: span.name,
    kind: KINDS[span.kind] ?? 'SpanKind.INTERNAL',
    start_ns: span.startNs.toString(),
    end_ns: span.endNs.toString(),
    status: {
      status_code: STATUSES[span.status.code] ?? 'StatusCode.UNSET',
      description: span.status.message || null,
    },
    trace_state: span.traceState,
    request_log_id: link?.id ?? null,
    request_log: link?.summary ?? null,
  };
}

/** The span's detail as the trace read answers it, with the instrumentation scope under `extra`. */
const toDetail = (span: OtlpSpan) => ({
  attributes: span.attributes,
  events: span.events,
  links: span.links,
  resource: { attributes: span.resource },
  extra: { scope: span.scope, source: 'otlp' },
});
