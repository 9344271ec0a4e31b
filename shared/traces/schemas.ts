import { jsonObject } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { parseNanos } from './span-time.ts';

/**
 * Bodies and answers of the tracing routes, in the shapes of PromptLayer's OpenAPI (`CreateSpansBulk`,
 * `Span`, `CreateSpansBulkResponse`, `TraceDetailResponse`) and of what the JavaScript SDK's exporter sends.
 */

/** Spans one POST /spans-bulk may carry. */
export const MAX_SPANS_PER_CALL = 1000;

/** Trace and span ids land in table keys: hexadecimal only, bounded, compared in lower case. */
const HEX_ID = /^[0-9a-fA-F]{1,64}$/;
export const hexId = (what: string) =>
  z.pipe(
    z.string().check(z.regex(HEX_ID, `${what} must be 1 to 64 hexadecimal characters`)),
    z.transform((id) => id.toLowerCase()),
  );

export const traceIdField = hexId('trace_id');

/**
 * A parent is only ever compared with span ids, never keyed on, so it is checked less strictly (the
 * reference's own example says `"parent123"`); an empty string means no parent, as null does.
 */
const parentIdField = z.pipe(
  z.nullish(
    z
      .string()
      .check(
        z.maxLength(64, 'parent_id is at most 64 characters'),
        z.regex(/^[0-9A-Za-z_-]*$/, 'parent_id must be letters, digits, "_" or "-"'),
      ),
  ),
  z.transform((id) => (id ? id.toLowerCase() : null)),
);

/** Nanoseconds since the epoch, as a string of digits (the JavaScript SDK) or a JSON integer. */
const nanosField = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((value, ctx) => {
    const ns = parseNanos(value);
    if (ns === undefined) {
      ctx.issues.push({
        input: value,
        code: 'custom',
        message:
          'must be nanoseconds since the epoch: a non-negative integer or a string of digits, before year 10000',
      });
      return z.NEVER;
    }
    return ns;
  }),
);

export const SPAN_KINDS = [
  'SpanKind.CLIENT',
  'SpanKind.CONSUMER',
  'SpanKind.INTERNAL',
  'SpanKind.PRODUCER',
  'SpanKind.SERVER',
] as const;
export const STATUS_CODES = ['StatusCode.ERROR', 'StatusCode.OK', 'StatusCode.UNSET'] as const;

export const spanSchema = z
  .looseObject({
    name: z.string().check(z.minLength(1), z.maxLength(1024, 'a span name is at most 1024 characters')),
    context: z.looseObject({
      trace_id: traceIdField,
      span_id: hexId('span_id'),
      trace_state: z.nullish(z.string().check(z.maxLength(1024, 'trace_state is at most 1024 characters'))),
    }),
    kind: z.enum(SPAN_KINDS),
    parent_id: parentIdField,
    start_time: nanosField,
    end_time: nanosField,
    status: z.looseObject({
      status_code: z.enum(STATUS_CODES),
      description: z.nullish(
        z.string().check(z.maxLength(16_384, 'a status description is at most 16384 characters')),
      ),
    }),
    attributes: jsonObject,
    events: z.nullish(z.array(jsonObject).check(z.maxLength(10_000))),
    links: z.nullish(z.array(jsonObject).check(z.maxLength(10_000))),
    resource: z.nullish(z.looseObject({ attributes: jsonObject, schema_url: z.nullish(z.string()) })),
    /** Validated as a POST /log-request body once the span's times have filled in the missing request times. */
    log_request: z.nullish(jsonObject),
  })
  .check(
    z.superRefine((span, ctx) => {
      if (span.end_time < span.start_time) {
        ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time is before start_time' });
      }
    }),
  );
export type SpanInput = z.output<typeof spanSchema>;

export const spansBulkBodySchema = z.object({
  spans: z
    .array(spanSchema)
    .check(
      z.maxLength(
        MAX_SPANS_PER_CALL,
        `at most ${MAX_SPANS_PER_CALL} spans per call: send the rest in another call`,
      ),
    ),
  /**
   * PromptLayer closes the batch's traces to later spans when this is true. Not supported here: true is
   * refused (a 422) rather than ignored, so no client believes a trace is closed when it is not.
   */
  close_after: z
    .nullish(z.boolean())
    .check(
      z.refine(
        (close) => close !== true,
        'closing traces is not supported: send close_after false or leave it out',
      ),
    ),
});
export type SpansBulkBody = z.output<typeof spansBulkBodySchema>;

/** A short view of a linked request log, taken when the span was linked (those fields never change). */
export const requestLogSummarySchema = z.object({
  id: z.int(),
  provider: z.string(),
  model: z.string(),
  status: z.string(),
  prompt_name: z.nullable(z.string()),
  input_tokens: z.number(),
  output_tokens: z.number(),
  price: z.number(),
  latency_ms: z.number(),
});
export type RequestLogSummary = z.output<typeof requestLogSummarySchema>;

export const spansBulkResponseSchema = z.object({
  success: z.literal(true),
  spans: z.array(
    z.object({
      span_id: z.string(),
      trace_id: z.string(),
      name: z.string(),
      request_log_id: z.nullable(z.int()),
    }),
  ),
  request_logs: z.array(z.object({ id: z.int(), span_id: z.string(), trace_id: z.string() })),
});

const spanStatusView = z.object({ status_code: z.string(), description: z.nullable(z.string()) });

export interface SpanView {
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start_time: string;
  end_time: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  duration_ms: number;
  status: { status_code: string; description: string | null };
  request_log_id: number | null;
  request_log: RequestLogSummary | null;
  trace_state?: string;
  attributes?: Record<string, unknown>;
  events?: unknown[];
  links?: unknown[];
  resource?: Record<string, unknown> | null;
  extra?: Record<string, unknown>;
  detail_omitted?: true;
  children: SpanView[];
}

export const spanViewSchema: z.ZodMiniType<SpanView> = z.object({
  span_id: z.string(),
  parent_id: z.nullable(z.string()),
  name: z.string(),
  kind: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  start_time_unix_nano: z.string(),
  end_time_unix_nano: z.string(),
  duration_ms: z.number(),
  status: spanStatusView,
  request_log_id: z.nullable(z.int()),
  request_log: z.nullable(requestLogSummarySchema),
  trace_state: z.optional(z.string()),
  attributes: z.optional(jsonObject),
  events: z.optional(z.array(z.unknown())),
  links: z.optional(z.array(z.unknown())),
  resource: z.optional(z.nullable(jsonObject)),
  extra: z.optional(jsonObject),
  detail_omitted: z.optional(z.literal(true)),
  get children() {
    return z.array(spanViewSchema);
  },
});

export const traceResponseSchema = z.object({
  success: z.literal(true),
  trace_id: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  duration_ms: z.number(),
  span_count: z.int(),
  truncated: z.boolean(),
  detail_truncated: z.boolean(),
  spans: z.array(spanViewSchema),
});

/** The answer of POST /api/public/v2/traces/{trace_id}/close (PromptLayer's closeTrace). */
export const traceCloseResponseSchema = z.object({
  success: z.literal(true),
  closure: z.object({
    id: z.string(),
    workspace_id: z.int(),
    trace_id: z.string(),
    status: z.literal('closed'),
    created_at: z.string(),
  }),
});
