import { sortOrderNeedsSortBy } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { type RequestLogQuery, requestLogQuerySchema } from '#shared/request-logs/query.ts';
import { bucketKey, bucketStarts, bucketTotal, mergedValues } from './analytics-answer.ts';
import { type AnalyticsData, type AnalyticsPlan, analyticsData, planAnalytics } from './analytics-query.ts';
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
 * POST /api/public/v2/requests/analytics/custom-analytics: charts of one metric (or several series)
 * over the logs, overall, per value of a dimension, and/or per time bucket, computed from the same
 * per-bucket stats as the analytics answer. Fields and groupings are those the rollups hold; the logs
 * path answers when the query's filter needs it (docs/analytics.md).
 */
const METRIC_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cost',
  'latency_ms',
  'cached_tokens',
  'thinking_tokens',
] as const;
type MetricField = (typeof METRIC_FIELDS)[number];
/** Fields PromptLayer names that need the logs' content: refused with a 422 naming the supported ones. */
const GROUP_FIELDS = {
  engine: 'model',
  provider_type: 'provider',
  prompt_id: 'prompt_id',
  status: 'status',
  error_type: 'error_type',
  tags: 'tag',
} as const satisfies Record<string, Dimension>;

const seriesItem = z.object({
  key: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)),
  label: z.string().check(z.maxLength(120)),
  metric: z.enum(['sum', 'avg', 'min', 'max', 'percentile']),
  metricField: z.enum(METRIC_FIELDS),
  percentile: z.nullish(z.number().check(z.gte(0), z.lte(100))),
});

const chartSpec = z
  .object({
    id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _, at most 64')),
    title: z.nullish(z.string().check(z.maxLength(200))),
    chartType: z.enum(['bar', 'line', 'area']),
    metric: z.nullish(z.enum(['count', 'sum', 'avg', 'min', 'max', 'percentile'])),
    metricField: z.nullish(z.enum(METRIC_FIELDS)),
    percentile: z.nullish(z.number().check(z.gte(0), z.lte(100))),
    series: z.nullish(z.array(seriesItem).check(z.minLength(2), z.maxLength(10))),
    derivedInsights: z.nullish(
      z.array(
        z.object({
          type: z._default(z.literal('ratio'), 'ratio'),
          label: z.string().check(z.maxLength(200)),
          numeratorSeriesKey: z.string(),
          denominatorSeriesKey: z.string(),
        }),
      ),
    ),
    groupByField: z.nullish(
      z.enum(['engine', 'provider_type', 'prompt_id', 'status', 'error_type', 'tags', 'metadata_keys']),
    ),
    groupByMetadataKey: z.nullish(z.string().check(z.minLength(1), z.maxLength(200))),
    timeSeries: z.nullish(z.boolean()),
    limit: z.nullish(z.int().check(z.gte(1), z.lte(100))),
  })
  .check(
    z.superRefine((chart, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      if (chart.series && chart.metric) issue('metric', 'give metric or series, not both');
      if (!chart.series && !chart.metric) issue('metric', 'metric is required unless series is given');
      if (chart.metric && chart.metric !== 'count' && !chart.metricField)
        issue('metricField', 'metricField is required unless metric is count');
      for (const s of [chart, ...(chart.series ?? [])]) {
        if (s.metric === 'percentile' && s.percentile == null)
          issue('percentile', 'percentile is required with metric percentile');
        if (
          (s.metric === 'percentile' || s.metric === 'min' || s.metric === 'max') &&
          s.metricField &&
          s.metricField !== 'latency_ms'
        ) {
          issue(
            'metricField',
            `${s.metric} is answered for latency_ms only (the rollups keep sums of the other fields)`,
          );
        }
      }
      if (chart.groupByField && chart.groupByMetadataKey)
        issue('groupByMetadataKey', 'give groupByField or groupByMetadataKey, not both');
      if (chart.series && (chart.groupByField || chart.groupByMetadataKey) && chart.timeSeries) {
        issue('series', 'several series cannot be grouped and over time at once');
      }
      if (
        !chart.timeSeries &&
        !chart.groupByField &&
        !chart.groupByMetadataKey &&
        chart.chartType !== 'bar'
      ) {
        issue('chartType', 'an overall chart (no timeSeries, no grouping) must be a bar chart');
      }
      const keys = new Set((chart.series ?? []).map((s) => s.key));
      for (const insight of chart.derivedInsights ?? []) {
        if (!keys.has(insight.numeratorSeriesKey) || !keys.has(insight.denominatorSeriesKey)) {
          issue('derivedInsights', 'derived insights name series keys of the chart');
        }
      }
    }),
  );

export const customAnalyticsBodySchema = z
  .extend(requestLogQuerySchema, { customCharts: z.array(chartSpec).check(z.minLength(1), z.maxLength(20)) })
  .check(
    z.superRefine((body, ctx) => {
      const ids = body.customCharts.map((chart) => chart.id);
      if (new Set(ids).size !== ids.length)
        ctx.addIssue({ code: 'custom', path: ['customCharts'], message: 'chart ids must be unique' });
    }),
    z.superRefine(sortOrderNeedsSortBy),
  );

type ChartSpec = z.infer<typeof chartSpec>;
type SeriesSpec = {
  key: string;
  label: string;
  metric: NonNullable<ChartSpec['metric']>;
  metricField?: MetricField | null;
  percentile?: number | null;
};

const UNITS: Record<MetricField | 'count', string> = {
  input_tokens: 'tokens',
  output_tokens: 'tokens',
  cached_tokens: 'tokens',
  thinking_tokens: 'tokens',
  cost: 'currency',
  latency_ms: 'duration_seconds',
  count: 'count',
};

/** A metric of some stats; latencies in seconds (the unit PromptLayer's charts use). */
function metricValue(stats: Stats, s: SeriesSpec): number | null {
  const m = stats.measures;
  if (s.metric === 'count') return m.requests;
  const sums: Record<MetricField, number> = {
    input_tokens: m.inputTokens,
    output_tokens: m.outputTokens,
    cached_tokens: m.cacheReadTokens,
    thinking_tokens: m.reasoningTokens,
    cost: m.costNanos / NANOS_PER_USD,
    latency_ms: m.latencyMs / 1000,
  };
  const field = s.metricField ?? 'latency_ms';
  if (s.metric === 'sum') return sums[field];
  if (m.requests === 0) return null;
  if (s.metric === 'avg') return sums[field] / m.requests;
  const q = s.metric === 'min' ? 0 : s.metric === 'max' ? 1 : (s.percentile ?? 50) / 100;
  const ms = stats.latency.quantile(q);
  return ms === undefined ? null : ms / 1000;
}

function dimensionOf(chart: ChartSpec): StoredDimension | 'metadata_keys' | undefined {
  if (chart.groupByMetadataKey) return `${METADATA_PREFIX}${chart.groupByMetadataKey}`;
  if (chart.groupByField === 'metadata_keys') return 'metadata_keys';
  return chart.groupByField ? GROUP_FIELDS[chart.groupByField] : undefined;
}

/** Per group label, a stats getter (per bucket start, or undefined for the whole window). */
function groupsOf(data: AnalyticsData, dimension: StoredDimension | 'metadata_keys', limit: number) {
  const read = (start: number | undefined, dim: StoredDimension, value?: string) => {
    const contents =
      start === undefined
        ? [...data.buckets.values()]
        : [data.buckets.get(start)].filter((c) => c !== undefined);
    const stats = emptyStats();
    for (const content of contents) {
      for (const [v, s] of content.dimensions.get(dim) ?? [])
        if (value === undefined || v === value) mergeStats(stats, s);
    }
    return stats;
  };
  if (dimension === 'metadata_keys') {
    const keys = [...new Set([...data.buckets.values()].flatMap((c) => [...c.dimensions.keys()]))].filter(
      (d) => d.startsWith(METADATA_PREFIX),
    );
    return keys
      .map((key) => ({
        label: key.slice(METADATA_PREFIX.length),
        stats: (start?: number) => read(start, key),
      }))
      .sort((a, b) => b.stats().measures.requests - a.stats().measures.requests)
      .slice(0, limit);
  }
  return mergedValues(data, dimension)
    .slice(0, limit)
    .map(([label]) => ({
      label: dimension === 'prompt_id' ? splitPromptValue(label).id : label,
      stats: (start?: number) => read(start, dimension, label === OTHER_LABEL ? OTHER_VALUE : label),
    }));
}

function chartResult(data: AnalyticsData, chart: ChartSpec) {
  const series: SeriesSpec[] = chart.series ?? [
    {
      key: 'value',
      label: chart.title ?? chart.id,
      metric: chart.metric!,
      metricField: chart.metricField,
      percentile: chart.percentile,
    },
  ];
  const descriptors = series.map((s) => ({
    key: s.key,
    label: s.label,
    unit: UNITS[s.metric === 'count' ? 'count' : (s.metricField ?? 'latency_ms')],
  }));
  const dimension = dimensionOf(chart);
  const limit = chart.limit ?? 25;
  const total = (start?: number) =>
    start === undefined ? (mergedValues(data, TOTAL)[0]?.[1] ?? emptyStats()) : bucketTotal(data, start);
  let rows: Record<string, unknown>[];
  let seriesOut = descriptors;
  if (dimension && chart.timeSeries) {
    // One series per group value, one row per bucket.
    const groups = groupsOf(data, dimension, limit);
    const s = series[0]!;
    seriesOut = groups.map((g) => ({ key: g.label, label: g.label, unit: descriptors[0]!.unit }));
    rows = bucketStarts(data).map((start) => ({
      label: bucketKey(start, data.interval),
      bucketKey: bucketKey(start, data.interval),
      ...Object.fromEntries(groups.map((g) => [g.label, metricValue(g.stats(start), s)])),
    }));
  } else if (dimension) {
    rows = groupsOf(data, dimension, limit).map((g) => ({
      label: g.label,
      ...Object.fromEntries(series.map((s) => [s.key, metricValue(g.stats(), s)])),
    }));
  } else if (chart.timeSeries) {
    rows = bucketStarts(data).map((start) => ({
      label: bucketKey(start, data.interval),
      bucketKey: bucketKey(start, data.interval),
      ...Object.fromEntries(series.map((s) => [s.key, metricValue(total(start), s)])),
    }));
  } else {
    rows = [{ label: 'All', ...Object.fromEntries(series.map((s) => [s.key, metricValue(total(), s)])) }];
  }
  const totals = Object.fromEntries(series.map((s) => [s.key, metricValue(total(), s) ?? 0]));
  return {
    id: chart.id,
    title: chart.title ?? chart.id,
    chartType: chart.chartType,
    series: seriesOut,
    data: rows,
    derivedInsights:
      chart.derivedInsights?.map((insight) => ({
        type: 'ratio' as const,
        label: insight.label,
        numeratorSeriesKey: insight.numeratorSeriesKey,
        denominatorSeriesKey: insight.denominatorSeriesKey,
        value: totals[insight.denominatorSeriesKey]
          ? totals[insight.numeratorSeriesKey]! / totals[insight.denominatorSeriesKey]!
          : 0,
      })) ?? null,
  };
}

/** The rollups answer a chart unless the query's one dimension condition and the chart's grouping differ. */
function rollupsAnswer(plan: AnalyticsPlan, charts: readonly ChartSpec[]): boolean {
  if (!plan.rollups) return false;
  const condition = plan.rollups.condition;
  return charts.every((chart) => {
    const dimension = dimensionOf(chart);
    return !condition || !dimension || dimension === condition.dimension;
  });
}

export async function customAnalytics(
  workspaceId: number,
  body: RequestLogQuery & { customCharts: ChartSpec[] },
  nowMs = Date.now(),
) {
  const plan = planAnalytics(body, nowMs);
  const data = await analyticsData(workspaceId, plan, nowMs, rollupsAnswer(plan, body.customCharts));
  return {
    success: true as const,
    source: data.source,
    incomplete_results: data.incompleteResults,
    customCharts: body.customCharts.map((chart) => chartResult(data, chart)),
  };
}

export const customAnalyticsResponseSchema = z.object({
  success: z.literal(true),
  source: z.enum(['rollups', 'logs']),
  incomplete_results: z.boolean(),
  customCharts: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      chartType: z.enum(['bar', 'line', 'area']),
      series: z.array(z.object({ key: z.string(), label: z.string(), unit: z.string() })),
      data: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
      derivedInsights: z.nullable(
        z.array(
          z.object({
            type: z.literal('ratio'),
            label: z.string(),
            numeratorSeriesKey: z.string(),
            denominatorSeriesKey: z.string(),
            value: z.number(),
          }),
        ),
      ),
    }),
  ),
});
