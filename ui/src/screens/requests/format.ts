/** Numbers of a request log for people. */

/** USD with enough digits for a fraction of a cent: `$0.0123`, `$1.25`; empty for nothing known. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '';
  if (usd === 0) return '$0';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '')}`;
}

export const formatCount = (n: number | null | undefined): string =>
  n === null || n === undefined ? '' : n.toLocaleString('en-US');

/** A byte count: `812 B`, `2.3 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
