import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { jsonObject, wellFormedString } from '#shared/platform/schemas.ts';
import { timestampSchema } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { metadataField } from './annotation-schemas.ts';

/** Body of POST /log-request: every field, default and bound of the endpoint (docs/api.md). */
export const REQUEST_STATUSES = ['SUCCESS', 'WARNING', 'ERROR'] as const;

/** error_type values and the statuses each may accompany (the error_type table in docs/api.md). */
export const ERROR_TYPE_STATUSES = {
  PROVIDER_RATE_LIMIT: ['WARNING', 'ERROR'],
  PROVIDER_QUOTA_LIMIT: ['WARNING', 'ERROR'],
  PROVIDER_PARTIAL_RESPONSE: ['WARNING'],
  VARIABLE_MISSING_OR_EMPTY: ['WARNING'],
  PROVIDER_TIMEOUT: ['ERROR'],
  PROVIDER_AUTH_ERROR: ['ERROR'],
  PROVIDER_ERROR: ['ERROR'],
  TEMPLATE_RENDER_ERROR: ['ERROR'],
  UNKNOWN_ERROR: ['WARNING', 'ERROR'],
} as const satisfies Record<string, readonly (typeof REQUEST_STATUSES)[number][]>;
export type ErrorType = keyof typeof ERROR_TYPE_STATUSES;
const ERROR_TYPES = Object.keys(ERROR_TYPE_STATUSES) as [ErrorType, ...ErrorType[]];

/** An optional field whose explicit null means "not given" (the Python SDK sends nulls). */
const orDefault = <T extends z.ZodMiniType>(schema: T, fallback: z.output<T>) =>
  z.pipe(
    z.nullish(schema),
    z.transform((value) => value ?? fallback),
  );

const nonNegativeInt = z.int().check(z.gte(0));

/**
 * `usage`: the subsets of the token totals (docs/api.md, docs/cost.md). `input_tokens` and
 * `output_tokens` stay the totals: input includes the cache reads and writes, output the reasoning.
 */
export const usageDetailSchema = z
  .object({
    cache_read_tokens: orDefault(nonNegativeInt, 0),
    cache_write_tokens: orDefault(nonNegativeInt, 0),
    reasoning_tokens: orDefault(nonNegativeInt, 0),
    cache_write_1h_tokens: z.nullish(nonNegativeInt),
    input_audio_tokens: z.nullish(nonNegativeInt),
    output_audio_tokens: z.nullish(nonNegativeInt),
    input_image_tokens: z.nullish(nonNegativeInt),
  })
  .clone()
  .register(z.globalRegistry, {
    description:
      'Subsets of input_tokens (cache reads, cache writes, audio, image) and of output_tokens (reasoning, audio); cache_write_1h_tokens of cache_write_tokens',
  });
export type UsageDetail = z.output<typeof usageDetailSchema>;

/** Each subset and the total it is part of: a subset larger than its total is a 422 naming it. */
const USAGE_SUBSETS = [
  { total: 'input_tokens', parts: ['cache_read_tokens', 'cache_write_tokens'] },
  { total: 'input_tokens', parts: ['input_audio_tokens', 'input_image_tokens'] },
  { total: 'output_tokens', parts: ['reasoning_tokens'] },
  { total: 'output_tokens', parts: ['output_audio_tokens'] },
] as const;

export const logRequestBodySchema = z
  .looseObject({
    provider: z.string().check(z.minLength(1)),
    model: z.string().check(z.minLength(1)),
    input: blueprintSchema,
    output: blueprintSchema,
    request_start_time: timestampSchema,
    request_end_time: timestampSchema,
    parameters: orDefault(jsonObject, {}),
    tags: orDefault(z.array(z.string().check(z.maxLength(512, 'a tag is at most 512 characters'))), []),
    metadata: orDefault(metadataField, {}),
    prompt_name: z.nullish(wellFormedString().check(z.minLength(1))),
    prompt_id: z.nullish(z.int().check(z.gte(1))),
    prompt_version_number: z.nullish(z.int().check(z.gt(0))),
    prompt_input_variables: orDefault(jsonObject, {}),
    group_id: z.nullish(z.int().check(z.gte(1))),
    input_tokens: orDefault(nonNegativeInt, 0),
    output_tokens: orDefault(nonNegativeInt, 0),
    price: orDefault(z.number().check(z.gte(0)), 0),
    usage: z.nullish(usageDetailSchema),
    function_name: orDefault(z.string(), ''),
    score: orDefault(z.int().check(z.gte(0), z.lte(100)), 0),
    api_type: z.nullish(z.string()),
    status: orDefault(z.enum(REQUEST_STATUSES), 'SUCCESS'),
    error_type: z.nullish(z.enum(ERROR_TYPES)),
    error_message: z.nullish(z.string().check(z.maxLength(1024, 'error_message is at most 1024 characters'))),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.error_type) {
        const allowed: readonly string[] = ERROR_TYPE_STATUSES[body.error_type];
        if (!allowed.includes(body.status)) {
          ctx.addIssue({
            code: 'custom',
            path: ['error_type'],
            message: `error_type ${body.error_type} is not allowed with status ${body.status} (allowed: ${allowed.join(', ')})`,
          });
        }
      }
      if (body.status === 'SUCCESS' && body.error_message != null) {
        ctx.addIssue({
          code: 'custom',
          path: ['error_message'],
          message: 'error_message is only allowed with status WARNING or ERROR',
        });
      }
      for (const { total, parts } of USAGE_SUBSETS) {
        let sum = 0;
        for (const part of parts) {
          sum += body.usage?.[part] ?? 0;
          if (sum > body[total]) {
            ctx.addIssue({
              code: 'custom',
              path: ['usage', part],
              message: `usage.${parts.join(' + usage.')} (${sum}) is more than ${total} (${body[total]}), which includes ${parts.length > 1 ? 'them' : 'it'}`,
            });
            break;
          }
        }
      }
      const writes = body.usage?.cache_write_tokens ?? 0;
      const hourWrites = body.usage?.cache_write_1h_tokens ?? 0;
      if (hourWrites > writes) {
        ctx.addIssue({
          code: 'custom',
          path: ['usage', 'cache_write_1h_tokens'],
          message: `usage.cache_write_1h_tokens (${hourWrites}) is more than usage.cache_write_tokens (${writes}), which includes it`,
        });
      }
      if (body.request_end_time < body.request_start_time) {
        ctx.addIssue({
          code: 'custom',
          path: ['request_end_time'],
          message: 'request_end_time is before request_start_time',
        });
      }
    }),
  );

export type LogRequestBody = z.output<typeof logRequestBodySchema>;
