import * as z from 'zod';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { isoTimestamp, jsonObject, pageFields } from '#shared/platform/response-schemas.ts';
import { promptVersionViewSchema } from '#shared/prompts/schemas.ts';
import { LOG_STATUSES } from './record.ts';

/** Response schemas of the request-log routes (field for field as log-request.ts, detail-view.ts and search.ts build them). */

const status = z
  .enum(LOG_STATUSES)
  .meta({ description: 'RUNNING: a replay whose provider call continues as a job (docs/replay.md)' });

/** Token usage in one meaning (docs/cost.md): input includes cache reads and writes, output includes reasoning. */
export const usageSchema = z
  .object({
    input_tokens: z.int(),
    output_tokens: z.int(),
    cache_read_tokens: z.int(),
    cache_write_tokens: z.int(),
    reasoning_tokens: z.int(),
    cache_write_1h_tokens: z.int().optional(),
    input_audio_tokens: z.int().optional(),
    output_audio_tokens: z.int().optional(),
    input_image_tokens: z.int().optional(),
  })
  .meta({ id: 'Usage' });

/** A cost in USD and its parts (they sum to `total`, which is the log's `price`). */
export const costSchema = z
  .object({
    total: z.number(),
    input: z.number().meta({ description: 'Uncached input tokens' }),
    cached_input: z.number().meta({ description: 'Cache reads' }),
    cache_write: z.number().meta({ description: 'Cache writes' }),
    output: z.number().meta({ description: 'Output tokens other than reasoning' }),
    reasoning: z.number(),
    source: z.string().meta({
      description: '`client`, `price_table@<version>`, `workspace_override` or `unknown_model`',
    }),
    priced_as: z.string().nullable().meta({ description: 'The price entry applied (its model)' }),
  })
  .meta({ id: 'CostBreakdown' });

const costFields = {
  usage: usageSchema,
  cost: costSchema.nullable().meta({ description: 'Null for a log stored before costs were computed' }),
};

/** POST /log-request. */
export const logRequestResponseSchema = z.object({
  id: z.int(),
  prompt_version: promptVersionViewSchema
    .nullable()
    .meta({ description: 'The template version the request used, when the log named a prompt' }),
  status,
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
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
    api_type: z.string().nullable(),
    function_name: z.string(),
    prompt_blueprint: z.object({
      prompt_template: blueprintSchema
        .optional()
        .meta({ description: 'Left out of a log too large to answer twice: see prompt_template_in' }),
      prompt_template_in: z.literal('input').optional(),
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
    prompt_id: z.int().nullable(),
    prompt_name: z.string().nullable(),
    prompt_version_number: z.int().nullable(),
    prompt_input_variables: jsonObject,
    input_tokens: z.int(),
    output_tokens: z.int(),
    tokens: z.int(),
    price: z.number(),
    ...costFields,
    score: z.number(),
    scores: z.record(z.string(), z.number()),
    status,
    error_type: z.string().nullable(),
    error_message: z.string().nullable(),
    request_start_time: isoTimestamp,
    request_end_time: isoTimestamp,
    latency_ms: z.number(),
    replay_of: z
      .int()
      .nullable()
      .meta({ description: 'The log this one is a replay of (POST /api/public/v2/requests/{id}/replay)' }),
    trace_id: z.string().nullable(),
    created_at: isoTimestamp,
    extra: jsonObject.meta({ description: 'Top-level fields of the logged body the API does not define' }),
  })
  .meta({ id: 'RequestLogDetail' });

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
    latency: z.number().meta({ description: 'Seconds' }),
    tags_array: z.array(z.string()),
    metadata: z.array(z.record(z.string(), z.string())),
    scores: z.array(z.object({ name: z.string(), score: z.number() })),
    score: z.number(),
    prompt_name: z.string().nullable().optional(),
    prompt_id: z.int().nullable(),
    prompt_version_number: z.int().nullable(),
    status,
    error_type: z.string().nullable(),
    error_message: z.string().nullable(),
  })
  .meta({ id: 'RequestLogSearchResult' });

export const requestLogSearchResponseSchema = z.object({
  success: z.literal(true),
  items: z.array(requestLogSearchResultSchema),
  ...pageFields,
  total: z.int().nullable().meta({ description: 'Matches counted; null with `include_total: false`.' }),
  pages: z.int().nullable().meta({ description: 'Pages of `total`; null with `include_total: false`.' }),
  next_cursor: z.string().nullable().meta({
    description:
      'Send as `cursor` (same search, without `page`) for the page after this one; null when no match is left.',
  }),
  incomplete_results: z
    .boolean()
    .meta({ description: 'True when more logs matched than one search reads: narrow the filters' }),
});
