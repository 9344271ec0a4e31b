import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Granularity } from './buckets.ts';
import { type Dimension, type LogFacts, METADATA_PREFIX, type Measures } from './facts.ts';
import { LatencySketch } from './sketch.ts';

/**
 * The content of one rollup item: for one workspace, bucket and group of dimensions, the stats of each
 * dimension value (and of the whole bucket, dimension `total`). Layout, caps and exactness:
 * docs/analytics.md.
 *
 * Groups pack the dimensions so that a batch of logs in one bucket writes three items per granularity:
 * `core` (total, status, error type, provider, model: few values), `prompts` (prompt, prompt id, prompt
 * version, tag) and `metadata` (every metadata key).
 */
export type RollupGroup = 'core' | 'prompts' | 'metadata';
export const ROLLUP_GROUPS: readonly RollupGroup[] = ['core', 'prompts', 'metadata'];
export const TOTAL = 'total';
export type StoredDimension = Dimension | typeof TOTAL;

export function groupOf(dimension: StoredDimension): RollupGroup {
  if (dimension.startsWith(METADATA_PREFIX)) return 'metadata';
  if (
    dimension === 'prompt' ||
    dimension === 'prompt_id' ||
    dimension === 'prompt_version' ||
    dimension === 'tag'
  ) {
    return 'prompts';
  }
  return 'core';
}

/**
 * The value under which a dimension's values beyond the cap are counted. Empty: a log never counts
 * under an empty value (facts.ts skips them). Answers show it as OTHER_LABEL.
 */
export const OTHER_VALUE = '';
export const OTHER_LABEL = '(other)';

/** Distinct values a dimension holds in one item before new values count under OTHER_VALUE. */
export const MAX_VALUES_PER_DIMENSION = 200;
/** Metadata keys one item holds; a further key is not a dimension in that bucket. */
export const MAX_METADATA_KEYS_PER_ITEM = 50;
/**
 * Compressed bytes of an item's content before its smallest values are folded into OTHER_VALUE:
 * DynamoDB's item limit is 400 KB.
 */
export const MAX_CONTENT_BYTES = 300_000;

export interface Stats {
  measures: Measures;
  latency: LatencySketch;
}

export const emptyMeasures = (): Measures => ({
  requests: 0,
  success: 0,
  warning: 0,
  error: 0,
  costNanos: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  latencyMs: 0,
});

const MEASURE_NAMES = Object.keys(emptyMeasures()) as (keyof Measures)[];

export const emptyStats = (): Stats => ({ measures: emptyMeasures(), latency: new LatencySketch() });

/** Adds (sign 1) or subtracts (sign -1) `from` into `into`. */
export function mergeStats(into: Stats, from: Stats, sign: 1 | -1 = 1): Stats {
  for (const name of MEASURE_NAMES) into.measures[name] += sign * from.measures[name];
  into.latency.merge(from.latency, sign);
  return into;
}

/** The stats of one bucket and group: dimension -> value -> stats. */
export class RollupContent {
  readonly dimensions = new Map<StoredDimension, Map<string, Stats>>();

  /** Adds (sign 1) or subtracts (sign -1) one log's facts, for the dimensions of `group`. */
  addFacts(group: RollupGroup, facts: LogFacts, sign: 1 | -1): void {
    const one = emptyStats();
    mergeStats(one, { measures: facts.measures, latency: new LatencySketch().add(facts.latencyMs) });
    if (group === 'core') this.addTo(TOTAL, '', one, sign);
    for (const [dimension, values] of facts.values) {
      if (groupOf(dimension) !== group) continue;
      for (const value of values) this.addTo(dimension, value, one, sign);
    }
  }

  /**
   * The caps keep the answer exact whatever the order of adds and subtracts: once a dimension counts
   * under OTHER_VALUE, a value it does not hold goes there (a value folded into it never comes back),
   * and a value it holds kept every contribution since its first. Metadata keys are never removed.
   */
  private addTo(dimension: StoredDimension, value: string, stats: Stats, sign: 1 | -1): void {
    let values = this.dimensions.get(dimension);
    if (!values) {
      if (dimension.startsWith(METADATA_PREFIX) && this.metadataKeys() >= MAX_METADATA_KEYS_PER_ITEM) return;
      values = new Map();
      this.dimensions.set(dimension, values);
    }
    let target = value;
    if (!values.has(value) && (values.has(OTHER_VALUE) || values.size >= MAX_VALUES_PER_DIMENSION)) {
      target = OTHER_VALUE;
    }
    const current = values.get(target) ?? emptyStats();
    mergeStats(current, stats, sign);
    if (current.measures.requests === 0 && target !== OTHER_VALUE && dimension !== TOTAL)
      values.delete(target);
    else values.set(target, current);
  }

  /**
   * Whether logs counted under one of `values` of `dimension` may be missing from the values this
   * content holds: counted under OTHER_VALUE (a value held keeps every contribution since its first,
   * but one not held, or any name of a prompt id, may have gone there), or under no value at all (a
   * metadata key past the item's cap).
   */
  mayMiss(dimension: Dimension, values: readonly string[]): boolean {
    const held = this.dimensions.get(dimension);
    if (!held)
      return dimension.startsWith(METADATA_PREFIX) && this.metadataKeys() >= MAX_METADATA_KEYS_PER_ITEM;
    if (!held.has(OTHER_VALUE)) return false;
    return dimension === 'prompt_id' || values.some((value) => !held.has(value));
  }

  private metadataKeys(): number {
    let keys = 0;
    for (const dimension of this.dimensions.keys()) if (dimension.startsWith(METADATA_PREFIX)) keys++;
    return keys;
  }

  /** Adds another content (another bucket) into this one. */
  merge(other: RollupContent): this {
    for (const [dimension, values] of other.dimensions) {
      const into = this.dimensions.get(dimension) ?? new Map<string, Stats>();
      this.dimensions.set(dimension, into);
      for (const [value, stats] of values) mergeStats(into.get(value) ?? setNew(into, value), stats);
    }
    return this;
  }

  /** Compressed JSON; folds the smallest values into OTHER_VALUE until it fits MAX_CONTENT_BYTES. */
  encode(): Uint8Array {
    for (;;) {
      const bytes = deflateRawSync(JSON.stringify(this.toJson()));
      if (bytes.byteLength <= MAX_CONTENT_BYTES || !this.foldLargestDimension()) return bytes;
    }
  }

  static decode(bytes: Uint8Array | undefined): RollupContent {
    const content = new RollupContent();
    if (!bytes || bytes.byteLength === 0) return content;
    const json = JSON.parse(inflateRawSync(bytes).toString('utf8')) as Record<
      string,
      Record<string, (number | string)[]>
    >;
    for (const [dimension, values] of Object.entries(json)) {
      const map = new Map<string, Stats>();
      for (const [value, row] of Object.entries(values)) {
        const measures = emptyMeasures();
        MEASURE_NAMES.forEach((name, i) => {
          measures[name] = Number(row[i]);
        });
        map.set(value, { measures, latency: LatencySketch.decode(String(row[MEASURE_NAMES.length])) });
      }
      content.dimensions.set(dimension as StoredDimension, map);
    }
    return content;
  }

  private toJson() {
    const json: Record<string, Record<string, (number | string)[]>> = {};
    for (const [dimension, values] of this.dimensions) {
      const out: Record<string, (number | string)[]> = {};
      for (const [value, stats] of values) {
        out[value] = [...MEASURE_NAMES.map((name) => stats.measures[name]), stats.latency.encode()];
      }
      json[dimension] = out;
    }
    return json;
  }

  /** Folds the smaller half of the dimension with most values into OTHER_VALUE; false when nothing can. */
  private foldLargestDimension(): boolean {
    let largest: Map<string, Stats> | undefined;
    for (const [dimension, values] of this.dimensions) {
      if (dimension !== TOTAL && values.size > 1 && values.size > (largest?.size ?? 1)) largest = values;
    }
    if (!largest) return false;
    const ranked = [...largest.entries()]
      .filter(([value]) => value !== OTHER_VALUE)
      .sort((a, b) => a[1].measures.requests - b[1].measures.requests);
    const other = largest.get(OTHER_VALUE) ?? emptyStats();
    for (const [value, stats] of ranked.slice(0, Math.ceil(ranked.length / 2))) {
      mergeStats(other, stats);
      largest.delete(value);
    }
    largest.set(OTHER_VALUE, other);
    return true;
  }
}

function setNew(values: Map<string, Stats>, value: string): Stats {
  const stats = emptyStats();
  values.set(value, stats);
  return stats;
}

/** What every rollup item's partition key contains (after the workspace). */
export const ROLLUP_KEY_MARK = '#RU#';

/** Key of the rollup item of a workspace, granularity and group for the bucket starting at `start`. */
export const rollupPartition = (workspaceId: number, granularity: Granularity, group: RollupGroup) =>
  `W#${workspaceId}${ROLLUP_KEY_MARK}${granularity}#${group}`;
export const rollupSortKey = (start: number) => String(start).padStart(15, '0');
