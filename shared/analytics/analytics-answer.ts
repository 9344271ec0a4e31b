import type { AnalyticsData } from './analytics-query.ts';
import { GRANULARITY_MS } from './buckets.ts';
import { type Dimension, METADATA_PREFIX, NANOS_PER_USD, splitPromptValue } from './facts.ts';
import {
  emptyStats,
  mergeStats,
  OTHER_LABEL,
  OTHER_VALUE,
  type Stats,
  type StoredDimension,
  TOTAL,
} from './rollup-item.ts';

/**
 * POST /api/public/v2/requests/analytics: PromptLayer's answer shape, built from per-bucket stats
 * (rollups or logs alike). Latencies are in seconds, as PromptLayer answers them. Fields that need the
 * logs' content (outputShapeCounts, traceShare, turn and tool-call counts, output keys, tools) are not
 * answered (docs/analytics.md).
 */
export const BREAKDOWN_LIMIT = 50;

const seconds = (ms: number) => ms / 1000;
const usd = (nanos: number) => nanos / NANOS_PER_USD;

export function bucketKey(start: number, interval: AnalyticsData['interval']): string {
  const iso = new Date(start).toISOString();
  return interval === 'day' ? iso.slice(0, 10) : iso;
}

function bucketLabel(start: number, interval: AnalyticsData['interval']): string {
  const date = new Date(start);
  const day = date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return interval === 'day' ? day : `${day} ${date.toISOString().slice(11, 16)}`;
}

/** Every bucket start of the window, empty ones included (a chart's axis has no holes). */
export function bucketStarts(data: AnalyticsData): number[] {
  const step = GRANULARITY_MS[data.interval];
  const starts: number[] = [];
  for (let at = Math.floor(data.fromMs / step) * step; at < data.toMs; at += step) starts.push(at);
  return starts;
}

/** One dimension merged over all buckets, most requests first, (other) labelled. */
export function mergedValues(data: AnalyticsData, dimension: StoredDimension): [string, Stats][] {
  const values = new Map<string, Stats>();
  for (const content of data.buckets.values()) {
    for (const [value, stats] of content.dimensions.get(dimension) ?? []) {
      const into = values.get(value) ?? emptyStats();
      values.set(value, mergeStats(into, stats));
    }
  }
  return [...values.entries()]
    .map(([value, stats]): [string, Stats] => [value === OTHER_VALUE ? OTHER_LABEL : value, stats])
    .sort((a, b) => b[1].measures.requests - a[1].measures.requests);
}

export const bucketTotal = (data: AnalyticsData, start: number): Stats =>
  data.buckets.get(start)?.dimensions.get(TOTAL)?.get('') ?? emptyStats();

function latencySeries(data: AnalyticsData, stats: (start: number) => Stats | undefined) {
  const series = {
    average_latency: [] as [string, number][],
    p50_latency: [] as [string, number][],
    p90_latency: [] as [string, number][],
    p95_latency: [] as [string, number][],
  };
  for (const start of bucketStarts(data)) {
    const s = stats(start);
    if (!s || s.measures.requests === 0) continue;
    const key = bucketKey(start, data.interval);
    series.average_latency.push([key, seconds(s.measures.latencyMs / s.measures.requests)]);
    const [p50 = 0, p90 = 0, p95 = 0] = s.latency.quantiles([0.5, 0.9, 0.95]);
    series.p50_latency.push([key, seconds(p50)]);
    series.p90_latency.push([key, seconds(p90)]);
    series.p95_latency.push([key, seconds(p95)]);
  }
  return series;
}

/** Per value of a dimension (the top ones), its requests per bucket and its latency series. */
function byBucket(data: AnalyticsData, dimension: Dimension, top: string[]) {
  const requests: Record<string, [string, number][]> = {};
  const latency: Record<string, ReturnType<typeof latencySeries>> = {};
  for (const value of top) {
    const stored = value === OTHER_LABEL ? OTHER_VALUE : value;
    const statsAt = (start: number) => data.buckets.get(start)?.dimensions.get(dimension)?.get(stored);
    requests[value] = bucketStarts(data).flatMap((start): [string, number][] => {
      const n = statsAt(start)?.measures.requests ?? 0;
      return n > 0 ? [[bucketKey(start, data.interval), n]] : [];
    });
    latency[value] = latencySeries(data, statsAt);
  }
  return { requests, latency };
}

const breakdownRow = (stats: Stats) => ({
  requests: stats.measures.requests,
  cost: usd(stats.measures.costNanos),
  tokens: stats.measures.inputTokens + stats.measures.outputTokens,
  inputTokens: stats.measures.inputTokens,
  outputTokens: stats.measures.outputTokens,
});

export function analyticsAnswer(data: AnalyticsData, metadataCostBreakdownKey?: string | null) {
  const total = mergedValues(data, TOTAL)[0]?.[1] ?? emptyStats();
  const m = total.measures;
  const [p50 = 0, p90 = 0, p95 = 0, p99 = 0] = total.latency.quantiles([0.5, 0.9, 0.95, 0.99]);
  const starts = bucketStarts(data);
  const models = mergedValues(data, 'model');
  const providers = mergedValues(data, 'provider');
  const prompts = mergedValues(data, 'prompt_id');
  const topModels = models.slice(0, BREAKDOWN_LIMIT).map(([value]) => value);
  const topProviders = providers.slice(0, BREAKDOWN_LIMIT).map(([value]) => value);
  const topPrompts = prompts.slice(0, BREAKDOWN_LIMIT).map(([value]) => value);
  const modelSeries = byBucket(data, 'model', topModels);
  const providerSeries = byBucket(data, 'provider', topProviders);
  const promptSeries = byBucket(data, 'prompt_id', topPrompts);
  // Keyed by the prompt's name, as PromptLayer keys them.
  const byName = <T>(series: Record<string, T>) =>
    Object.fromEntries(Object.entries(series).map(([value, v]) => [splitPromptValue(value).name, v]));
  const metadataKeys = [
    ...new Set([...data.buckets.values()].flatMap((c) => [...c.dimensions.keys()])),
  ].filter((d): d is `metadata.${string}` => d.startsWith(METADATA_PREFIX));
  const keyRequests = metadataKeys
    .map((dimension) => ({
      key: dimension.slice(METADATA_PREFIX.length),
      requests: mergedValues(data, dimension).reduce((sum, [, s]) => sum + s.measures.requests, 0),
    }))
    .sort((a, b) => b.requests - a.requests);
  const valueBreakdown = (
    metadataCostBreakdownKey ? [`${METADATA_PREFIX}${metadataCostBreakdownKey}` as const] : metadataKeys
  )
    .flatMap((dimension) =>
      mergedValues(data, dimension).map(([value, stats]) => {
        const key = dimension.slice(METADATA_PREFIX.length);
        return {
          key,
          value,
          label: metadataCostBreakdownKey ? value : `${key} = ${value}`,
          requests: stats.measures.requests,
          cost: usd(stats.measures.costNanos),
        };
      }),
    )
    .sort((a, b) => b.cost - a.cost || b.requests - a.requests)
    .slice(0, BREAKDOWN_LIMIT);
  const overall = latencySeries(data, (start) => bucketTotal(data, start));
  const asMap = (pairs: [string, number][]) => Object.fromEntries(pairs);
  return {
    success: true as const,
    source: data.source,
    incomplete_results: data.incompleteResults,
    start_time: new Date(data.fromMs).toISOString(),
    end_time: new Date(data.toMs).toISOString(),
    /** Breakdowns by dimensions other than the filtered one are not held by the rollups: left empty. */
    breakdowns_partial: data.partial,
    chartInterval: {
      interval: data.interval,
      bucketSizeMs: GRANULARITY_MS[data.interval],
      bucketMinutes: GRANULARITY_MS[data.interval] / 60_000,
    },
    averageLatency: m.requests > 0 ? seconds(m.latencyMs / m.requests) : 0,
    totalCost: usd(m.costNanos),
    totalTokens: m.inputTokens + m.outputTokens,
    totalInputTokens: m.inputTokens,
    totalOutputTokens: m.outputTokens,
    totalRequests: m.requests,
    totalCachedTokens: m.cacheReadTokens,
    totalCacheWriteTokens: m.cacheWriteTokens,
    totalThinkingTokens: m.reasoningTokens,
    cacheTokenRatio: m.inputTokens > 0 ? m.cacheReadTokens / m.inputTokens : null,
    latencyPercentiles: { p50: seconds(p50), p90: seconds(p90), p95: seconds(p95), p99: seconds(p99) },
    stats: starts.map((start) => {
      const s = bucketTotal(data, start).measures;
      const statuses = data.buckets.get(start)?.dimensions.get('status');
      return {
        date: bucketKey(start, data.interval),
        dateLabel: bucketLabel(start, data.interval),
        requests: s.requests,
        tokens: s.inputTokens + s.outputTokens,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        cost: usd(s.costNanos),
        latency: s.requests > 0 ? seconds(s.latencyMs / s.requests) : 0,
        cachedTokens: s.cacheReadTokens,
        thinkingTokens: s.reasoningTokens,
        statusCounts: Object.fromEntries(
          [...(statuses ?? [])].map(([status, stats]) => [status, stats.measures.requests]),
        ),
      };
    }),
    mostUsedModels: models
      .slice(0, BREAKDOWN_LIMIT)
      .map(([model, stats]) => [model, stats.measures.requests]),
    modelRequestsByDay: modelSeries.requests,
    mostUsedPromptTemplates: prompts.slice(0, BREAKDOWN_LIMIT).map(([value, stats]) => ({
      promptId: splitPromptValue(value).id,
      requests: stats.measures.requests,
      promptName: splitPromptValue(value).name,
    })),
    promptTemplateRequestsByDay: byName(promptSeries.requests),
    providerRequestsByDay: providerSeries.requests,
    latency: {
      average_latency: asMap(overall.average_latency),
      p50_latency: asMap(overall.p50_latency),
      p90_latency: asMap(overall.p90_latency),
      p95_latency: asMap(overall.p95_latency),
    },
    latencyByModelByDay: modelSeries.latency,
    latencyByPromptTemplateByDay: byName(promptSeries.latency),
    latencyByProviderByDay: providerSeries.latency,
    errorTypes: mergedValues(data, 'error_type').map(([errorType, stats]) => ({
      errorType,
      requests: stats.measures.requests,
    })),
    providerBreakdown: providers
      .slice(0, BREAKDOWN_LIMIT)
      .map(([provider, stats]) => ({ provider, ...breakdownRow(stats) })),
    promptBreakdown: prompts.slice(0, BREAKDOWN_LIMIT).map(([value, stats]) => ({
      promptId: splitPromptValue(value).id,
      promptName: splitPromptValue(value).name,
      ...breakdownRow(stats),
    })),
    promptVersionBreakdown: mergedValues(data, 'prompt_version')
      .slice(0, BREAKDOWN_LIMIT)
      .map(([promptVersion, stats]) => ({ promptVersion, ...breakdownRow(stats) })),
    modelBreakdown: models
      .slice(0, BREAKDOWN_LIMIT)
      .map(([model, stats]) => ({ model, ...breakdownRow(stats) })),
    tagsBreakdown: mergedValues(data, 'tag')
      .slice(0, BREAKDOWN_LIMIT)
      .map(([tag, stats]) => ({ tag, ...breakdownRow(stats) })),
    metadataKeysTop: keyRequests.slice(0, BREAKDOWN_LIMIT),
    metadataValueBreakdown: valueBreakdown,
  };
}
