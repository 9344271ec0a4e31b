import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { isoTimestamp, jsonObject, pageFields } from '#shared/platform/response-schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { promptVersionViewSchema } from '#shared/prompts/schemas.ts';
import { LOG_STATUSES } from './record.ts';

/** Response schemas of the request-log routes (field for field as log-request.ts, detail-view.ts and search.ts build them). */

const status = z.enum(LOG_STATUSES).clone().register(z.globalRegistry, {
  description: 'RUNNING: a replay whose provider call continues as a job (docs/replay.md)',
});

/** Token usage in one meaning (docs/cost.md): input includes cache reads and writes, output includes reasoning. */
export const usageSchema = z
  .object({
    input_tokens: z.int(),
    output_tokens: z.int(),
    cache_read_tokens: z.int(),
    cache_write_tokens: z.int(),
    reasoning_tokens: z.int(),
    cache_write_1h_tokens: z.optional(z.int()),
    input_audio_tokens: z.optional(z.int()),
    output_audio_tokens: z.optional(z.int()),
    input_image_tokens: z.optional(z.int()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Usage' });

/** A cost in USD and its parts (they sum to `total`, which is the log's `price`). */
export const costSchema = z
  .object({
    total: z.number(),
    input: z.number().clone().register(z.globalRegistry, { description: 'Uncached input tokens' }),
    cached_input: z.number().clone().register(z.globalRegistry, { description: 'Cache reads' }),
    cache_write: z.number().clone().register(z.globalRegistry, { description: 'Cache writes' }),
    output: z
      .number()
      .clone()
      .register(z.globalRegistry, { description: 'Output tokens other than reasoning' }),
    reasoning: z.number(),
    source: z.string().clone().register(z.globalRegistry, {
      description: '`client`, `price_table@<version>`, `workspace_override` or `unknown_model`',
    }),
    priced_as: z
      .nullable(z.string())
      .clone()
      .register(z.globalRegistry, { description: 'The price entry applied (its model)' }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'CostBreakdown' });

const costFields = {
  usage: usageSchema,
  cost: z
    .nullable(costSchema)
    .clone()
    .register(z.globalRegistry, { description: 'Null for a log stored before costs were computed' }),
};

/** POST /log-request. */
export const logRequestResponseSchema = z.object({
  id: z.int(),
  prompt_version: z.nullable(promptVersionViewSchema).clone().register(z.globalRegistry, {
    description: 'The template version the request used, when the log named a prompt',
  }),
  status,
  error_type: z.nullable(z.string()),
  error_message: z.nullable(z.string()),
});

/** GET /api/public/v2/requests/{request_id}. */
export const requestLogDetailSchema = z
  .object({
    success: z.literal(true),
    request_id: z.int(),
    id: z.int(),
    workspace_id: z.int(),
    provider: z.string(),
    model: z.string(),
    api_type: z.nullable(z.string()),
    function_name: z.string(),
    prompt_blueprint: z.object({
      prompt_template: z.optional(blueprintSchema).clone().register(z.globalRegistry, {
        description: 'Left out of a log too large to answer twice: see prompt_template_in',
      }),
      prompt_template_in: z.optional(z.literal('input')),
      metadata: z.object({
        model: z.object({ provider: z.string(), name: z.string(), parameters: jsonObject }),
      }),
      inference_client_name: z.null(),
    }),
    input: blueprintSchema,
    output: blueprintSchema,
    parameters: jsonObject,
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.string()),
    prompt_id: z.nullable(z.int()),
    prompt_name: z.nullable(z.string()),
    prompt_version_number: z.nullable(z.int()),
    prompt_input_variables: jsonObject,
    input_tokens: z.int(),
    output_tokens: z.int(),
    tokens: z.int(),
    price: z.number(),
    ...costFields,
    score: z.number(),
    scores: z.record(z.string(), z.number()),
    status,
    error_type: z.nullable(z.string()),
    error_message: z.nullable(z.string()),
    request_start_time: isoTimestamp,
    request_end_time: isoTimestamp,
    latency_ms: z.number(),
    replay_of: z.nullable(z.int()).clone().register(z.globalRegistry, {
      description: 'The log this one is a replay of (POST /api/public/v2/requests/{id}/replay)',
    }),
    trace_id: z.nullable(z.string()),
    created_at: isoTimestamp,
    extra: jsonObject.clone().register(z.globalRegistry, {
      description: 'Top-level fields of the logged body the API does not define',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'RequestLogDetail' });

/** An item of POST /api/public/v2/requests/search. */
export const requestLogSearchResultSchema = z
  .object({
    id: z.int(),
    engine: z.string(),
    provider_type: z.string(),
    input_tokens: z.int(),
    output_tokens: z.int(),
    price: z.number(),
    ...costFields,
    request_start_time: isoTimestamp,
    request_end_time: isoTimestamp,
    latency: z.number().clone().register(z.globalRegistry, { description: 'Seconds' }),
    tags_array: z.array(z.string()),
    metadata: z.array(z.record(z.string(), z.string())),
    scores: z.array(z.object({ name: z.string(), score: z.number() })),
    score: z.number(),
    prompt_name: z.optional(z.nullable(z.string())),
    prompt_id: z.nullable(z.int()),
    prompt_version_number: z.nullable(z.int()),
    status,
    error_type: z.nullable(z.string()),
    error_message: z.nullable(z.string()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'RequestLogSearchResult' });

export const requestLogSearchResponseSchema = z.object({
  success: z.literal(true),
  items: z.array(requestLogSearchResultSchema),
  ...pageFields,
  total: z
    .nullable(z.int())
    .clone()
    .register(z.globalRegistry, { description: 'Matches counted; null with `include_total: false`.' }),
  pages: z
    .nullable(z.int())
    .clone()
    .register(z.globalRegistry, { description: 'Pages of `total`; null with `include_total: false`.' }),
  next_cursor: z.nullable(z.string()).clone().register(z.globalRegistry, {
    description:
      'Send as `cursor` (same search, without `page`) for the page after this one; null when no match is left.',
  }),
  incomplete_results: z.boolean().clone().register(z.globalRegistry, {
    description: 'True when more logs matched than one search reads: narrow the filters',
  }),
});
