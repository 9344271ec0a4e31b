/** Numbers as the analytics screen shows them. */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

export const formatPercent = (fraction: number | null): string =>
  fraction === null ? '—' : `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)}%`;

/** A latency percentile (seconds) in ms; with no request there is none, not 0 ms. */
export const formatLatency = (seconds: number, requests: number): string =>
  requests === 0 ? '—' : `${formatCount(Math.round(seconds * 1000))} ms`;

export const formatValue = (value: number | null, unit: string): string => {
  if (value === null) return '—';
  if (unit === 'USD') return formatCost(value);
  if (unit === '%') return `${value}%`;
  if (unit === 'ms') return `${formatCount(value)} ms`;
  return formatCount(value);
};
