import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import type { ModelPriceOverride } from './overrides.ts';

/** Request and response schemas of the model-price routes (docs/cost.md, docs/api.md). */

/** The model as logs name it (`model` of a log, matched ignoring case); one with `/` is URL-encoded in the path. */
export const modelPathSchema = z.object({
  model: wellFormedString().check(z.minLength(1), z.maxLength(256)),
});

/** USD per million tokens: finite, not negative, below a bound that no real price reaches. */
const usdPerMillion = z.number().check(z.gte(0), z.lte(1_000_000));

export const putModelPriceBodySchema = z.strictObject({
  provider: z
    .nullish(wellFormedString().check(z.minLength(1), z.maxLength(64)))
    .clone()
    .register(z.globalRegistry, {
      description: "Applies only to logs of this provider (the log's `provider`); null: any provider",
    }),
  usd_per_million_tokens: z.strictObject({
    input: usdPerMillion,
    output: usdPerMillion,
    cached_input: z
      .nullish(usdPerMillion)
      .clone()
      .register(z.globalRegistry, { description: 'Cache reads; the input price when absent' }),
    cache_write: z
      .nullish(usdPerMillion)
      .clone()
      .register(z.globalRegistry, { description: 'Cache writes; the input price when absent' }),
    reasoning: z
      .nullish(usdPerMillion)
      .clone()
      .register(z.globalRegistry, { description: 'Reasoning tokens; the output price when absent' }),
  }),
});
export type PutModelPriceBody = z.output<typeof putModelPriceBodySchema>;

/** The override as stored: every part's price filled in. */
export function toOverride(model: string, body: PutModelPriceBody): Omit<ModelPriceOverride, 'updated_at'> {
  const prices = body.usd_per_million_tokens;
  return {
    model,
    provider: body.provider ?? null,
    usd_per_million_tokens: {
      input: prices.input,
      cached_input: prices.cached_input ?? prices.input,
      cache_write: prices.cache_write ?? prices.input,
      output: prices.output,
      reasoning: prices.reasoning ?? prices.output,
    },
  };
}

export const modelPriceViewSchema = z
  .object({
    model: z.string(),
    provider: z.nullable(z.string()),
    usd_per_million_tokens: z.object({
      input: z.number(),
      cached_input: z.number(),
      cache_write: z.number(),
      output: z.number(),
      reasoning: z.number(),
    }),
    updated_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'ModelPrice' });

export const toModelPriceView = (override: ModelPriceOverride): z.infer<typeof modelPriceViewSchema> => ({
  ...override,
  updated_at: toIso(override.updated_at),
});

export const modelPriceAnswerSchema = z.object({
  success: z.literal(true),
  model_price: modelPriceViewSchema,
});
export const modelPriceListSchema = z.object({
  success: z.literal(true),
  items: z
    .array(modelPriceViewSchema)
    .clone()
    .register(z.globalRegistry, { description: 'Every override of the workspace (at most 200), by model' }),
});
