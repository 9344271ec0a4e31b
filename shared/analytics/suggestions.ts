import { invalid } from '#shared/platform/errors.ts';
import * as z from '#shared/platform/zod.ts';
import { FilterGroupSchema } from '#shared/request-logs/filters.ts';
import { mergedValues } from './analytics-answer.ts';
import { planAnalytics, rollupData } from './analytics-query.ts';
import { METADATA_PREFIX, splitPromptValue } from './facts.ts';
import { groupOf, OTHER_LABEL, type StoredDimension } from './rollup-item.ts';

/**
 * GET /api/public/v2/requests/suggestions: values seen for a field, most used first, from the rollups
 * of the last 30 days (or of the time range of `filter_group`, whose other conditions are not applied):
 * never a scan of logs. Fields whose values only the logs' content holds (tool names, output and input
 * variable keys and values) are refused with a 422 naming the supported ones.
 */
export const SUGGESTION_LIMIT = 100;

const FIELD_DIMENSIONS = {
  engine: 'model',
  provider_type: 'provider',
  prompt_id: 'prompt_id',
  prompt: 'prompt',
  tags: 'tag',
  status: 'status',
  metadata_keys: 'metadata_keys',
  metadata_values: 'metadata_values',
} as const;

export const suggestionsQuerySchema = z.object({
  field: z.enum(
    Object.keys(FIELD_DIMENSIONS) as [keyof typeof FIELD_DIMENSIONS, ...(keyof typeof FIELD_DIMENSIONS)[]],
    {
      error: `field must be one of ${Object.keys(FIELD_DIMENSIONS).join(', ')} (the others need the logs' content)`,
    },
  ),
  prefix: z.optional(z.string().check(z.maxLength(200))),
  metadata_key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  prompt_id: z.optional(z.coerce.number().check(z.int()).check(z.gte(1))),
  filter_group: z.optional(z.string().check(z.maxLength(20_000))),
});

export const suggestionsResponseSchema = z.object({
  success: z.literal(true),
  values: z.array(z.string()),
  source: z.literal('rollups'),
});

export async function requestSuggestions(
  workspaceId: number,
  query: z.infer<typeof suggestionsQuerySchema>,
  nowMs = Date.now(),
) {
  const dimensionName = FIELD_DIMENSIONS[query.field];
  if (dimensionName === 'metadata_values' && !query.metadata_key) {
    throw invalid(['query', 'metadata_key'], 'metadata_key is required when field is metadata_values');
  }
  const plan = planAnalytics({ filter_group: parseFilterGroup(query.filter_group) }, nowMs);
  const dimension: StoredDimension =
    dimensionName === 'metadata_values'
      ? `${METADATA_PREFIX}${query.metadata_key}`
      : dimensionName === 'metadata_keys'
        ? `${METADATA_PREFIX}_`
        : dimensionName;
  const data = await rollupData(workspaceId, { ...plan, rollups: {} }, nowMs, [groupOf(dimension)]);
  let values: string[];
  if (dimensionName === 'metadata_keys') {
    const keys = new Map<string, number>();
    for (const content of data.buckets.values()) {
      for (const [name, byValue] of content.dimensions) {
        if (!name.startsWith(METADATA_PREFIX)) continue;
        let requests = 0;
        for (const stats of byValue.values()) requests += stats.measures.requests;
        const key = name.slice(METADATA_PREFIX.length);
        keys.set(key, (keys.get(key) ?? 0) + requests);
      }
    }
    values = [...keys.entries()].sort((a, b) => b[1] - a[1]).map(([key]) => key);
  } else {
    values = mergedValues(data, dimension)
      .map(([value]) => value)
      .filter((value) => value !== OTHER_LABEL);
    if (dimensionName === 'prompt_id')
      values = [...new Set(values.map((value) => splitPromptValue(value).id))];
  }
  const prefix = query.prefix?.toLowerCase();
  return {
    success: true as const,
    values: values
      .filter((value) => !prefix || value.toLowerCase().startsWith(prefix))
      .slice(0, SUGGESTION_LIMIT),
    source: 'rollups' as const,
  };
}

function parseFilterGroup(text: string | undefined) {
  if (!text) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid(['query', 'filter_group'], 'filter_group must be a JSON-encoded filter group');
  }
  const parsed = FilterGroupSchema.safeParse(json);
  if (!parsed.success) throw invalid(['query', 'filter_group'], 'filter_group is not a valid filter group');
  return parsed.data;
}
