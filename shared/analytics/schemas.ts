import { sortOrderNeedsSortBy } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { requestLogQuerySchema } from '#shared/request-logs/query.ts';

/** Request and response schemas of the analytics routes (PromptLayer's shapes, plus `source`). */

const source = z.enum(['rollups', 'logs']).clone().register(z.globalRegistry, {
  description: 'What answered: the rollups, or the search engine over the logs (within its budget)',
});
const incomplete = z.boolean().clone().register(z.globalRegistry, {
  description:
    'True when the logs path ran out of its examined-log budget: the answer covers the newest logs read',
});

/** POST /api/public/v2/requests/analytics. */
export const analyticsBodySchema = z
  .extend(requestLogQuerySchema, {
    metadata_cost_breakdown_key: z.nullish(z.string().check(z.minLength(1), z.maxLength(200))),
  })
  .check(z.superRefine(sortOrderNeedsSortBy));

const pair = z.array(z.union([z.string(), z.number()]));
const latencySeries = z.object({
  average_latency: z.array(pair),
  p50_latency: z.array(pair),
  p90_latency: z.array(pair),
  p95_latency: z.array(pair),
});
const breakdown = {
  requests: z.int(),
  cost: z.number(),
  tokens: z.int(),
  inputTokens: z.int(),
  outputTokens: z.int(),
};

export const analyticsResponseSchema = z.object({
  success: z.literal(true),
  source,
  incomplete_results: incomplete,
  start_time: z.string(),
  end_time: z.string(),
  breakdowns_partial: z.boolean().clone().register(z.globalRegistry, {
    description:
      'True when a dimension filter was answered from the rollups: breakdowns by other dimensions are empty',
  }),
  chartInterval: z.object({
    interval: z.string(),
    bucketSizeMs: z.int(),
    bucketMinutes: z.nullable(z.int()),
  }),
  averageLatency: z.number(),
  totalCost: z.number(),
  totalTokens: z.int(),
  totalInputTokens: z.int(),
  totalOutputTokens: z.int(),
  totalRequests: z.int(),
  totalCachedTokens: z.int(),
  totalCacheWriteTokens: z.int(),
  totalThinkingTokens: z.int(),
  cacheTokenRatio: z.nullable(z.number()),
  latencyPercentiles: z.object({ p50: z.number(), p90: z.number(), p95: z.number(), p99: z.number() }),
  stats: z.array(
    z.object({
      date: z.string(),
      dateLabel: z.string(),
      requests: z.int(),
      tokens: z.int(),
      inputTokens: z.int(),
      outputTokens: z.int(),
      cost: z.number(),
      latency: z.number(),
      cachedTokens: z.int(),
      thinkingTokens: z.int(),
      statusCounts: z.record(z.string(), z.int()),
    }),
  ),
  mostUsedModels: z.array(pair),
  modelRequestsByDay: z.record(z.string(), z.array(pair)),
  mostUsedPromptTemplates: z.array(
    z.object({ promptId: z.string(), requests: z.int(), promptName: z.string() }),
  ),
  promptTemplateRequestsByDay: z.record(z.string(), z.array(pair)),
  providerRequestsByDay: z.record(z.string(), z.array(pair)),
  latency: z.object({
    average_latency: z.record(z.string(), z.number()),
    p50_latency: z.record(z.string(), z.number()),
    p90_latency: z.record(z.string(), z.number()),
    p95_latency: z.record(z.string(), z.number()),
  }),
  latencyByModelByDay: z.record(z.string(), latencySeries),
  latencyByPromptTemplateByDay: z.record(z.string(), latencySeries),
  latencyByProviderByDay: z.record(z.string(), latencySeries),
  errorTypes: z.array(z.object({ errorType: z.string(), requests: z.int() })),
  providerBreakdown: z.array(z.object({ provider: z.string(), ...breakdown })),
  promptBreakdown: z.array(z.object({ promptId: z.string(), promptName: z.string(), ...breakdown })),
  promptVersionBreakdown: z.array(z.object({ promptVersion: z.string(), ...breakdown })),
  modelBreakdown: z.array(z.object({ model: z.string(), ...breakdown })),
  tagsBreakdown: z.array(z.object({ tag: z.string(), ...breakdown })),
  metadataKeysTop: z.array(z.object({ key: z.string(), requests: z.int() })),
  metadataValueBreakdown: z.array(
    z.object({ key: z.string(), value: z.string(), label: z.string(), requests: z.int(), cost: z.number() }),
  ),
});
