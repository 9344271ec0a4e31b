import { invalid } from '#shared/platform/errors.ts';
import { parseTimestamp } from '#shared/platform/time.ts';
import type { Filter, FilterGroup } from '#shared/request-logs/filters.ts';
import { examineMatches, type RequestLogQuery } from '#shared/request-logs/query.ts';
import { SEARCH_MAX_EXAMINED } from '#shared/request-logs/search.ts';
import {
  bucketStart,
  FIVE_MINUTE_READABLE_MS,
  GRANULARITY_MS,
  type Granularity,
  tileWindow,
} from './buckets.ts';
import { type Dimension, logFacts, MAX_VALUE_LENGTH, METADATA_PREFIX, matchesValue } from './facts.ts';
import {
  emptyStats,
  groupOf,
  mergeStats,
  ROLLUP_GROUPS,
  RollupContent,
  type RollupGroup,
  type Stats,
  TOTAL,
} from './rollup-item.ts';
import { readTiles } from './rollup-store.ts';

/**
 * How an analytics question (a request-log query: filter_group, q) is answered, and the data it is
 * answered from: per chart bucket, the stats of every dimension value. The rollups answer a time range
 * with at most one dimension condition (one value, or several of a single-valued dimension); anything
 * else (free text, text or numeric fields, OR groups, nested groups, two dimensions) is answered from
 * the logs by the search engine, within its examined-log budget. docs/analytics.md.
 */
export const DEFAULT_WINDOW_MS = 30 * GRANULARITY_MS.day;
/** The longest window a chart covers: about 13 months of days. */
export const MAX_WINDOW_MS = 400 * GRANULARITY_MS.day;

export interface DimensionCondition {
  dimension: Dimension;
  /** The log counts when it is under any of these values. */
  values: string[];
}

export interface AnalyticsPlan {
  fromMs: number;
  toMs: number;
  interval: Granularity;
  /** Present when the rollups can answer: the one dimension condition, if any. */
  rollups?: { condition?: DimensionCondition };
  /** The query the logs path runs: the request's, restricted to the window. */
  logsQuery: RequestLogQuery;
}

const SINGLE_VALUED: Readonly<Record<string, Dimension>> = {
  engine: 'model',
  provider_type: 'provider',
  prompt_id: 'prompt_id',
  status: 'status',
};

export function planAnalytics(query: RequestLogQuery, nowMs: number): AnalyticsPlan {
  const group = query.filter_group;
  const filters = group && (group.logic !== 'OR' || group.filters.length <= 1) ? group.filters : undefined;
  let from: number | undefined;
  let to: number | undefined;
  let condition: DimensionCondition | undefined;
  let answerable = !query.q && (!group || filters !== undefined);
  for (const item of filters ?? []) {
    if ('filters' in item) {
      answerable = false;
      continue;
    }
    if (item.field === 'request_start_time') {
      const bounds = timeBounds(item);
      if (!bounds) {
        answerable = false;
        continue;
      }
      if (bounds.from !== undefined) from = Math.max(from ?? bounds.from, bounds.from);
      if (bounds.to !== undefined) to = Math.min(to ?? bounds.to, bounds.to);
      continue;
    }
    const found = dimensionCondition(item);
    if (!found || condition) answerable = false;
    else condition = found;
  }
  const toMs = to !== undefined ? to + 1 : nowMs;
  const fromMs = from ?? toMs - DEFAULT_WINDOW_MS;
  if (toMs - fromMs > MAX_WINDOW_MS) {
    throw invalid(
      ['body', 'filter_group'],
      `the time range of analytics is at most ${MAX_WINDOW_MS / GRANULARITY_MS.day} days`,
    );
  }
  const interval = chartInterval(fromMs, toMs, nowMs);
  const tiling = tileWindow(fromMs, toMs, nowMs, interval);
  const windowFilter: FilterGroup = {
    logic: 'AND',
    filters: [
      { field: 'request_start_time', operator: 'between', value: [tiling.fromMs, tiling.toMs - 1] } as Filter,
      ...(group ? [group] : []),
    ],
  };
  return {
    fromMs: tiling.fromMs,
    toMs: tiling.toMs,
    interval,
    rollups: answerable ? { condition } : undefined,
    logsQuery: { filter_group: windowFilter, q: query.q },
  };
}

/** 5 minutes for the last two hours or less, hours up to two days, else days. */
function chartInterval(fromMs: number, toMs: number, nowMs: number): Granularity {
  const length = toMs - fromMs;
  if (length <= 2 * GRANULARITY_MS.hour && fromMs >= nowMs - FIVE_MINUTE_READABLE_MS) return '5m';
  if (length <= 2 * GRANULARITY_MS.day) return 'hour';
  return 'day';
}

/** Inclusive bounds of a start-time condition, undefined for a form the window cannot express. */
function timeBounds(filter: Filter): { from?: number; to?: number } | undefined {
  const at = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? parseTimestamp(value) : undefined;
  const value = filter.value as unknown;
  switch (filter.operator) {
    case 'after': {
      const ms = at(value);
      return ms === undefined ? undefined : { from: ms + 1 };
    }
    case 'before': {
      const ms = at(value);
      return ms === undefined ? undefined : { to: ms - 1 };
    }
    case 'between': {
      const [a, b] = Array.isArray(value) ? value.map(at) : [];
      return a === undefined || b === undefined ? undefined : { from: a, to: b };
    }
    default:
      return undefined;
  }
}

function dimensionCondition(filter: Filter): DimensionCondition | undefined {
  const found = namedCondition(filter);
  // The rollups keep a value's (and a metadata key's) first MAX_VALUE_LENGTH characters: a longer one
  // is not theirs to match.
  const tooLong = (text: string) => text.length > MAX_VALUE_LENGTH;
  const key = found?.dimension.startsWith(METADATA_PREFIX)
    ? found.dimension.slice(METADATA_PREFIX.length)
    : '';
  if (!found || found.values.some(tooLong) || tooLong(key)) return undefined;
  return found;
}

function namedCondition(filter: Filter): DimensionCondition | undefined {
  const value = filter.value as unknown;
  const single = SINGLE_VALUED[filter.field];
  if (single) {
    if (filter.operator === 'is' && value != null) return { dimension: single, values: [String(value)] };
    if (filter.operator === 'in' && Array.isArray(value) && value.length > 0) {
      return { dimension: single, values: value.map(String) };
    }
    return undefined;
  }
  if (filter.field === 'tags' && filter.operator === 'contains' && typeof value === 'string') {
    return { dimension: 'tag', values: [value] };
  }
  if (filter.field === 'metadata' && filter.operator === 'key_equals' && filter.nested_key && value != null) {
    if (filter.nested_key.includes('.')) return undefined;
    return { dimension: `metadata.${filter.nested_key}`, values: [String(value)] };
  }
  return undefined;
}

/** Per chart bucket start, the stats of every dimension value (TOTAL's value '' the whole bucket). */
export interface AnalyticsData {
  source: 'rollups' | 'logs';
  fromMs: number;
  toMs: number;
  interval: Granularity;
  buckets: Map<number, RollupContent>;
  /** Dimensions whose breakdown the data does not hold (those of a filtered rollup answer). */
  partial: boolean;
  /** The condition's logs may be counted under no value the rollups read (rollupData): the logs must answer. */
  conditionMayMiss: boolean;
  incompleteResults: boolean;
  /** Rollup items read, or logs examined. */
  itemsRead: number;
}

/** The data from the rollups: each chart bucket is the merge of the tiles it holds. */
export async function rollupData(
  workspaceId: number,
  plan: AnalyticsPlan,
  nowMs: number,
  groups: readonly RollupGroup[] = ROLLUP_GROUPS,
): Promise<AnalyticsData> {
  const condition = plan.rollups?.condition;
  const { tiles } = tileWindow(plan.fromMs, plan.toMs, nowMs, plan.interval);
  const buckets = new Map<number, RollupContent>();
  let itemsRead = 0;
  let conditionMayMiss = false;
  // With a condition only its dimension's group is needed: the totals are its values' stats.
  const wanted = condition ? [groupOf(condition.dimension)] : groups;
  const reads = await Promise.all(wanted.map((group) => readTiles(workspaceId, tiles, group)));
  for (const { found, itemsRead: read } of reads) {
    itemsRead += read;
    for (const { tile, content } of found) {
      if (condition && content.mayMiss(condition.dimension, condition.values)) conditionMayMiss = true;
      const start = bucketStart(tile.start, plan.interval);
      const bucket = buckets.get(start) ?? new RollupContent();
      buckets.set(start, bucket);
      bucket.merge(condition ? restrict(content, condition) : content);
    }
  }
  return {
    source: 'rollups',
    fromMs: plan.fromMs,
    toMs: plan.toMs,
    interval: plan.interval,
    buckets,
    partial: condition !== undefined,
    conditionMayMiss,
    incompleteResults: false,
    itemsRead,
  };
}

/** A bucket's content seen through a condition: its total is the condition's values, its only breakdown theirs. */
function restrict(content: RollupContent, condition: DimensionCondition): RollupContent {
  const restricted = new RollupContent();
  const total = emptyStats();
  const kept = new Map<string, Stats>();
  for (const [value, stats] of content.dimensions.get(condition.dimension) ?? []) {
    if (!condition.values.some((wanted) => matchesValue(condition.dimension, value, wanted))) continue;
    mergeStats(total, stats);
    kept.set(value, stats);
  }
  if (total.measures.requests === 0) return restricted;
  restricted.dimensions.set(TOTAL, new Map([['', total]]));
  restricted.dimensions.set(condition.dimension, kept);
  return restricted;
}

/** The data from the logs: the search engine's matches, within its budget, aggregated as the consumer does. */
export async function logsData(workspaceId: number, plan: AnalyticsPlan): Promise<AnalyticsData> {
  const buckets = new Map<number, RollupContent>();
  let examined = 0;
  const { complete } = await examineMatches(workspaceId, plan.logsQuery, SEARCH_MAX_EXAMINED, (records) => {
    for (const record of records) {
      examined++;
      const facts = logFacts(record);
      const start = bucketStart(facts.startMs, plan.interval);
      const bucket = buckets.get(start) ?? new RollupContent();
      buckets.set(start, bucket);
      for (const group of ROLLUP_GROUPS) bucket.addFacts(group, facts, 1);
    }
  });
  return {
    source: 'logs',
    fromMs: plan.fromMs,
    toMs: plan.toMs,
    interval: plan.interval,
    buckets,
    partial: false,
    conditionMayMiss: false,
    incompleteResults: !complete,
    itemsRead: examined,
  };
}

/**
 * The data of a plan: from the rollups when they can answer (and `rollupsMayAnswer`), else from the
 * logs. A condition whose value the rollups may have counted under (other), or not at all, is answered
 * from the logs too: the rollups would undercount it without knowing.
 */
export async function analyticsData(
  workspaceId: number,
  plan: AnalyticsPlan,
  nowMs: number,
  rollupsMayAnswer = plan.rollups !== undefined,
): Promise<AnalyticsData> {
  if (!rollupsMayAnswer) return logsData(workspaceId, plan);
  const data = await rollupData(workspaceId, plan, nowMs);
  return data.conditionMayMiss ? logsData(workspaceId, plan) : data;
}
