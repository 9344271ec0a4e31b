import { type Tile, tileWindow } from './buckets.ts';
import { type Dimension, NANOS_PER_USD } from './facts.ts';
import {
  emptyStats,
  groupOf,
  mergeStats,
  OTHER_LABEL,
  OTHER_VALUE,
  type Stats,
  type StoredDimension,
  TOTAL,
} from './rollup-item.ts';
import { readTiles, type TileContent } from './rollup-store.ts';

/**
 * The read API over the rollups for a time window (monitors, analytics): merged totals for the whole
 * window and per value of one dimension, from the coarsest buckets that tile it. Reads one Query per
 * run of buckets of a granularity and group: a few items per day of window, whatever the traffic.
 */
export interface WindowTotals {
  requests: number;
  successes: number;
  warnings: number;
  errors: number;
  /** USD. */
  cost: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Sum of latencies, ms (average = latencyMsSum / requests). */
  latencyMsSum: number;
  /** Latency at quantile q (0..1) in ms within 1 %; undefined without requests. */
  latencyQuantile(q: number): number | undefined;
}

export interface RollupWindowAnswer {
  /** The window covered: the asked one widened to bucket boundaries (buckets.ts `tileWindow`). */
  fromMs: number;
  toMs: number;
  /** The whole window (only the filter's value when a filter is given). */
  totals: WindowTotals;
  /** Per value of `groupBy`, most requests first (OTHER_LABEL: values beyond the item caps). */
  groups?: { value: string; totals: WindowTotals }[];
  /**
   * True when a dimension read had values beyond the caps in some bucket: a filter's value absent
   * there may be counted under OTHER_LABEL (docs/analytics.md).
   */
  overflowed: boolean;
  itemsRead: number;
}

export interface RollupWindowOptions {
  /** Only logs counted under this value of this dimension. */
  filter?: { dimension: Dimension; value: string };
  /** Totals per value of this dimension; with a filter, it must be the filter's dimension. */
  groupBy?: Dimension;
  /** Now, for which 5-minute buckets are still kept (default Date.now()). */
  nowMs?: number;
}

/** A question the rollups cannot answer (two different dimensions at once): the logs path answers it. */
export class RollupUnanswerableError extends Error {
  override name = 'RollupUnanswerableError';
}

export function totalsOf(stats: Stats): WindowTotals {
  const m = stats.measures;
  return {
    requests: m.requests,
    successes: m.success,
    warnings: m.warning,
    errors: m.error,
    cost: m.costNanos / NANOS_PER_USD,
    inputTokens: m.inputTokens,
    outputTokens: m.outputTokens,
    cacheReadTokens: m.cacheReadTokens,
    cacheWriteTokens: m.cacheWriteTokens,
    reasoningTokens: m.reasoningTokens,
    latencyMsSum: m.latencyMs,
    latencyQuantile: (q) => stats.latency.quantile(q),
  };
}

export async function readRollupWindow(
  workspaceId: number,
  window: { fromMs: number; toMs: number },
  options: RollupWindowOptions = {},
): Promise<RollupWindowAnswer> {
  const { filter, groupBy } = options;
  if (filter && groupBy && filter.dimension !== groupBy) {
    throw new RollupUnanswerableError('A filter and a grouping on different dimensions need the logs');
  }
  const tiling = tileWindow(window.fromMs, window.toMs, options.nowMs ?? Date.now());
  const dimension: StoredDimension = filter?.dimension ?? groupBy ?? TOTAL;
  const read = await readDimension(workspaceId, tiling.tiles, dimension);
  const byValue = read.values;
  // Grouped without a filter, the window's total is the `total` dimension: in the items just read when
  // the grouping is a core dimension, else in the core items, read now.
  let totals: Stats | undefined;
  let itemsRead = read.itemsRead;
  if (filter) totals = byValue.get(filter.value);
  else if (groupOf(dimension) === 'core') totals = mergeValues(read.found, TOTAL).values.get('');
  else {
    const whole = await readDimension(workspaceId, tiling.tiles, TOTAL);
    totals = whole.values.get('');
    itemsRead += whole.itemsRead;
  }
  const answer: RollupWindowAnswer = {
    fromMs: tiling.fromMs,
    toMs: tiling.toMs,
    totals: totalsOf(totals ?? emptyStats()),
    overflowed: read.overflowed,
    itemsRead,
  };
  if (groupBy) {
    answer.groups = [...byValue.entries()]
      .filter(([value]) => !filter || value === filter.value)
      .sort((a, b) => b[1].measures.requests - a[1].measures.requests)
      .map(([value, stats]) => ({
        value: value === OTHER_VALUE ? OTHER_LABEL : value,
        totals: totalsOf(stats),
      }));
  }
  return answer;
}

/** The merged stats per value of one dimension over the tiles. */
export async function readDimension(
  workspaceId: number,
  tiles: readonly Tile[],
  dimension: StoredDimension,
): Promise<{ values: Map<string, Stats>; overflowed: boolean; itemsRead: number; found: TileContent[] }> {
  const { found, itemsRead } = await readTiles(workspaceId, tiles, groupOf(dimension));
  return { ...mergeValues(found, dimension), itemsRead, found };
}

/** Per value of a dimension, the stats of the tiles merged. */
export function mergeValues(found: readonly TileContent[], dimension: StoredDimension) {
  const values = new Map<string, Stats>();
  let overflowed = false;
  for (const { content } of found) {
    for (const [value, stats] of content.dimensions.get(dimension) ?? []) {
      if (value === OTHER_VALUE && dimension !== TOTAL) overflowed = true;
      mergeStats(values.get(value) ?? setEmpty(values, value), stats);
    }
  }
  return { values, overflowed };
}

function setEmpty(values: Map<string, Stats>, value: string): Stats {
  const stats = emptyStats();
  values.set(value, stats);
  return stats;
}
