import { LogarithmicMapping } from '@datadog/sketches-js/dist/ddsketch/mapping/index.js';

/**
 * A DDSketch of latencies that can subtract: counts per bin of the logarithmic mapping of
 * `@datadog/sketches-js` (1 % relative accuracy), plus a count of zeros. Merging adds counts bin by bin,
 * so sketches of 5-minute buckets, hours and days merge into the sketch of any window, exactly as if
 * the values had been added to one sketch; a log whose latency changed (or that left a bucket)
 * subtracts its old value the same way. Serialised compactly by hand (`encode`): the package's own
 * protobuf form needs protobufjs, which is not its declared dependency.
 */
export const SKETCH_RELATIVE_ACCURACY = 0.01;

// The mapping module's index must be loaded (not LogarithmicMapping.js alone): the package's modules
// require each other in a cycle that only resolves from there.
const mapping = new LogarithmicMapping(SKETCH_RELATIVE_ACCURACY);

export class LatencySketch {
  private readonly counts = new Map<number, number>();
  private zeroCount = 0;
  /**
   * Encoded sketches added but not decoded yet: a read merges many sketches whose quantiles nobody asks
   * for (a metadata value's over 30 days), so decoding waits for the first look inside.
   */
  private pending: string[] = [];

  /** Count per bin index; bins that reach 0 are removed. */
  get bins(): ReadonlyMap<number, number> {
    this.materialize();
    return this.counts;
  }

  get zeros(): number {
    this.materialize();
    return this.zeroCount;
  }

  /** Adds `count` observations of `value` (ms, >= 0); a negative count subtracts them. */
  add(value: number, count = 1): this {
    this.materialize();
    if (value <= mapping.minPossible) this.zeroCount += count;
    else this.bump(mapping.key(value), count);
    return this;
  }

  /** Adds (sign 1) or subtracts (sign -1) every observation of another sketch. */
  merge(other: LatencySketch, sign: 1 | -1 = 1): this {
    if (sign === 1 && other.counts.size === 0 && other.zeroCount === 0) {
      this.pending.push(...other.pending);
      return this;
    }
    this.materialize();
    this.zeroCount += sign * other.zeros;
    for (const [index, count] of other.bins) this.bump(index, sign * count);
    return this;
  }

  get count(): number {
    let total = this.zeros;
    for (const count of this.bins.values()) total += count;
    return total;
  }

  /**
   * The value at quantile q (0..1), within 1 % of the true value of the observations added: the
   * DDSketch rank rule (the bin holding rank q * (count - 1)). Undefined for an empty sketch.
   */
  quantile(q: number): number | undefined {
    return this.quantiles([q])[0];
  }

  /** Several quantiles in one pass over the sorted bins (ascending qs are cheapest, any order works). */
  quantiles(qs: readonly number[]): (number | undefined)[] {
    const total = this.count;
    if (total <= 0) return qs.map(() => undefined);
    const indexes = [...this.bins.keys()].sort((a, b) => a - b);
    return qs.map((q) => {
      const rank = q * (total - 1);
      let seen = this.zeros;
      if (seen > rank) return 0;
      for (const index of indexes) {
        seen += this.bins.get(index) ?? 0;
        if (seen > rank) return mapping.value(index);
      }
      return mapping.value(indexes[indexes.length - 1] ?? 0);
    });
  }

  /**
   * `zeros|first:count,delta:count,...` with bin indexes in ascending order, each after the first as
   * the distance from the previous one: about 5 bytes per bin.
   */
  encode(): string {
    const indexes = [...this.bins.keys()].sort((a, b) => a - b);
    let previous = 0;
    const parts = indexes.map((index, i) => {
      const part = `${i === 0 ? index : index - previous}:${this.bins.get(index)}`;
      previous = index;
      return part;
    });
    return `${this.zeros}|${parts.join(',')}`;
  }

  /** The sketch of an encoded form; decoded on first use. */
  static decode(text: string): LatencySketch {
    const sketch = new LatencySketch();
    sketch.pending.push(text);
    return sketch;
  }

  private materialize(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    for (const text of pending) {
      const bar = text.indexOf('|');
      this.zeroCount += Number(text.slice(0, bar));
      let index = 0;
      let first = true;
      for (const part of text.slice(bar + 1).split(',')) {
        if (!part) continue;
        const colon = part.indexOf(':');
        const offset = Number(part.slice(0, colon));
        index = first ? offset : index + offset;
        first = false;
        this.bump(index, Number(part.slice(colon + 1)));
      }
    }
  }

  private bump(index: number, count: number): void {
    const next = (this.counts.get(index) ?? 0) + count;
    if (next === 0) this.counts.delete(index);
    else this.counts.set(index, next);
  }
}
