import { api } from '../../api/client.ts';
import type { Filter, FilterGroup } from '../../lib/log-query.ts';

export type Metric = 'cost' | 'requests' | 'error_rate' | 'latency_p95' | 'tokens';
export type Comparison = 'gt' | 'gte' | 'lt' | 'lte';

export interface Monitor {
  id: number;
  name: string;
  metric: Metric;
  filter: { dimension: string; value: string } | null;
  group_by: string | null;
  window_minutes: number;
  threshold: number;
  comparison: Comparison;
  cooldown_minutes: number;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

interface Totals {
  totalCost: number;
  totalRequests: number;
  totalTokens: number;
  latencyPercentiles: { p95: number };
}

/**
 * A monitor's dimension filter as a condition of the request-log query, for the dimensions the search
 * fields name; null when none does (a prompt label, a prompt version, an error type).
 */
function dimensionCondition(filter: NonNullable<Monitor['filter']>): Filter | null {
  const { dimension, value } = filter;
  if (dimension === 'model') return { field: 'engine', operator: 'is', value };
  if (dimension === 'provider') return { field: 'provider_type', operator: 'is', value };
  if (dimension === 'status') return { field: 'status', operator: 'is', value };
  if (dimension === 'tag') return { field: 'tags', operator: 'contains', value };
  if (dimension.startsWith('metadata.'))
    return {
      field: 'metadata',
      operator: 'key_equals',
      nested_key: dimension.slice('metadata.'.length),
      value,
    };
  return null;
}

/** Whether the dashboard can compute the monitor's value from the analytics route (one group only). */
export const canComputeValue = (monitor: Monitor): boolean =>
  monitor.group_by === null && (monitor.filter === null || dimensionCondition(monitor.filter) !== null);

/**
 * The monitor's metric over its window ending now, from POST /requests/analytics (the same rollups the
 * evaluator reads). A rate or p95 of a window without requests is no value (null), as in the evaluator.
 */
export async function currentValue(
  monitor: Monitor,
  signal: AbortSignal,
  now = Date.now(),
): Promise<number | null> {
  const from = new Date(now - monitor.window_minutes * 60_000).toISOString();
  const base: Filter[] = [
    { field: 'request_start_time', operator: 'between', value: [from, new Date(now).toISOString()] },
  ];
  const condition = monitor.filter ? dimensionCondition(monitor.filter) : null;
  if (condition) base.push(condition);
  const totals = (extra: Filter[]) => {
    const filter_group: FilterGroup = { logic: 'AND', filters: [...base, ...extra] };
    return api<Totals>('POST', '/api/public/v2/requests/analytics', { body: { filter_group }, signal });
  };
  const all = await totals([]);
  switch (monitor.metric) {
    case 'cost':
      return all.totalCost;
    case 'requests':
      return all.totalRequests;
    case 'tokens':
      return all.totalTokens;
    case 'latency_p95':
      return all.totalRequests > 0 ? all.latencyPercentiles.p95 : null;
    case 'error_rate': {
      if (all.totalRequests === 0) return null;
      const errors = await totals([{ field: 'status', operator: 'is', value: 'ERROR' }]);
      return errors.totalRequests / all.totalRequests;
    }
  }
}

export function crosses(monitor: Monitor, value: number | null): boolean {
  if (value === null) return false;
  const t = monitor.threshold;
  return { gt: value > t, gte: value >= t, lt: value < t, lte: value <= t }[monitor.comparison];
}

export const COMPARISON_SIGNS: Record<Comparison, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

export function formatMetric(metric: Metric, value: number | null): string {
  if (value === null) return 'no value';
  if (metric === 'cost') return `$${value.toFixed(value < 1 ? 4 : 2)}`;
  if (metric === 'error_rate') return `${(value * 100).toFixed(1)} %`;
  if (metric === 'latency_p95') return `${Math.round(value).toLocaleString('en-US')} ms`;
  return value.toLocaleString('en-US');
}
