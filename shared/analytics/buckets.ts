/**
 * The time buckets of the rollups and how a window is tiled by them. Buckets are aligned to UTC:
 * 5-minute buckets (kept FIVE_MINUTE_RETENTION_MS, for monitors' short windows), hours and days.
 */
export type Granularity = '5m' | 'hour' | 'day';

export const GRANULARITY_MS: Readonly<Record<Granularity, number>> = {
  '5m': 300_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** Coarsest first: the order in which the tiling tries them. */
export const GRANULARITIES: readonly Granularity[] = ['day', 'hour', '5m'];

/** 5-minute items expire (TTL) this long after their bucket ends. */
export const FIVE_MINUTE_RETENTION_MS = 2 * GRANULARITY_MS.day;

/**
 * 5-minute buckets are only read when they started within this much of now: an hour less than their
 * retention, so a tile never names a bucket DynamoDB's TTL may already have deleted.
 */
export const FIVE_MINUTE_READABLE_MS = FIVE_MINUTE_RETENTION_MS - GRANULARITY_MS.hour;

export const bucketStart = (ms: number, granularity: Granularity) =>
  Math.floor(ms / GRANULARITY_MS[granularity]) * GRANULARITY_MS[granularity];

const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

export interface Tile {
  granularity: Granularity;
  /** Bucket start, epoch ms. */
  start: number;
}

export interface Tiling {
  /** The window actually covered: the asked one widened to bucket boundaries, [from, to). */
  fromMs: number;
  toMs: number;
  tiles: Tile[];
}

/**
 * The fewest buckets that exactly cover [fromMs, toMs) widened to bucket boundaries: whole days, then
 * whole hours, then 5-minute buckets at the edges. An edge is widened to 5 minutes, or to the hour
 * where 5-minute buckets are no longer kept (older than FIVE_MINUTE_READABLE_MS before `nowMs`).
 */
export function tileWindow(fromMs: number, toMs: number, nowMs: number): Tiling {
  const step5 = GRANULARITY_MS['5m'];
  const hour = GRANULARITY_MS.hour;
  const oldest5m = nowMs - FIVE_MINUTE_READABLE_MS;
  if (toMs <= fromMs) return { fromMs, toMs: fromMs, tiles: [] };
  let from = bucketStart(fromMs, '5m');
  if (from < oldest5m) from = bucketStart(fromMs, 'hour');
  let to = Math.max(ceilTo(toMs, step5), from);
  // An end within the first hour of the readable 5-minute buckets would leave an old 5-minute edge.
  if (to < oldest5m + hour) to = ceilTo(to, hour);
  const tiles: Tile[] = [];
  let at = from;
  while (at < to) {
    const granularity =
      GRANULARITIES.find((g) => at % GRANULARITY_MS[g] === 0 && at + GRANULARITY_MS[g] <= to) ?? '5m';
    tiles.push({ granularity, start: at });
    at += GRANULARITY_MS[granularity];
  }
  return { fromMs: from, toMs: to, tiles };
}
