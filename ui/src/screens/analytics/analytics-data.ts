/**
 * The parts of POST /api/public/v2/requests/analytics the screen shows, and the series its charts
 * draw. Latencies come in seconds (PromptLayer's unit); the screen shows milliseconds.
 */
type Pair = [string, number];
interface Breakdown {
  requests: number;
  cost: number;
  tokens: number;
}

export interface Analytics {
  source: 'rollups' | 'logs';
  incomplete_results: boolean;
  /** A dimension filter answered from the rollups: breakdowns by other dimensions (statuses too) are empty. */
  breakdowns_partial: boolean;
  start_time: string;
  end_time: string;
  chartInterval: { interval: string; bucketSizeMs: number };
  totalRequests: number;
  totalCost: number;
  totalTokens: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  latencyPercentiles: { p50: number; p95: number };
  stats: {
    date: string;
    requests: number;
    tokens: number;
    inputTokens: number;
    outputTokens: number;
    cost: number;
    statusCounts: Record<string, number>;
  }[];
  latency: { p50_latency: Record<string, number>; p95_latency: Record<string, number> };
  modelBreakdown: ({ model: string } & Breakdown)[];
  promptBreakdown: ({ promptId: string; promptName: string } & Breakdown)[];
  promptVersionBreakdown: ({ promptVersion: string } & Breakdown)[];
  tagsBreakdown: ({ tag: string } & Breakdown)[];
  metadataValueBreakdown: { key: string; value: string; label: string; requests: number; cost: number }[];
  mostUsedModels: Pair[];
}

/** One chart: a time axis (epoch seconds, as uPlot takes it) and one or more series over it. */
export interface TimeSeriesChart {
  id: string;
  title: string;
  unit: string;
  times: number[];
  series: { label: string; values: (number | null)[] }[];
}

const errorsOf = (statusCounts: Record<string, number>) => statusCounts.ERROR ?? 0;

/** Requests that ended in ERROR, as a fraction of all; null without requests. */
export const errorRate = (requests: number, errors: number): number | null =>
  requests > 0 ? errors / requests : null;

/** Errors in the window; null when the answer has no status counts (breakdowns_partial). */
export function totalErrors(data: Analytics): number | null {
  if (data.breakdowns_partial) return null;
  return data.stats.reduce((sum, bucket) => sum + errorsOf(bucket.statusCounts), 0);
}

/** A bucket's key (`2026-11-28` or an ISO time) as epoch seconds. */
const secondsOf = (date: string) => Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) / 1000;

export function timeSeriesCharts(data: Analytics): TimeSeriesChart[] {
  const times = data.stats.map((bucket) => secondsOf(bucket.date));
  const latency = (values: Record<string, number>) =>
    data.stats.map((bucket) => (bucket.date in values ? Math.round(values[bucket.date]! * 1000) : null));
  return [
    {
      id: 'requests',
      title: 'Requests',
      unit: 'requests',
      times,
      series: [{ label: 'Requests', values: data.stats.map((bucket) => bucket.requests) }],
    },
    {
      id: 'cost',
      title: 'Cost',
      unit: 'USD',
      times,
      series: [{ label: 'Cost (USD)', values: data.stats.map((bucket) => bucket.cost) }],
    },
    {
      id: 'tokens',
      title: 'Tokens',
      unit: 'tokens',
      times,
      series: [
        { label: 'Input tokens', values: data.stats.map((bucket) => bucket.inputTokens) },
        { label: 'Output tokens', values: data.stats.map((bucket) => bucket.outputTokens) },
      ],
    },
    {
      id: 'latency',
      title: 'Latency',
      unit: 'ms',
      times,
      series: [
        { label: 'p50 (ms)', values: latency(data.latency.p50_latency) },
        { label: 'p95 (ms)', values: latency(data.latency.p95_latency) },
      ],
    },
    {
      id: 'errors',
      title: 'Error rate',
      unit: '%',
      times,
      series: [
        {
          label: 'Errors (%)',
          values: data.stats.map((bucket) => {
            if (data.breakdowns_partial) return null;
            const rate = errorRate(bucket.requests, errorsOf(bucket.statusCounts));
            return rate === null ? null : Math.round(rate * 1000) / 10;
          }),
        },
      ],
    },
  ];
}
