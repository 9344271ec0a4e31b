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
  /** Count per bin index; bins that reach 0 are removed. */
  readonly bins = new Map<number, number>();
  zeros = 0;

  /** Adds `count` observations of `value` (ms, >= 0); a negative count subtracts them. */
  add(value: number, count = 1): this {
    if (value <= mapping.minPossible) this.zeros += count;
    else this.bump(mapping.key(value), count);
    return this;
  }

  /** Adds (sign 1) or subtracts (sign -1) every observation of another sketch. */
  merge(other: LatencySketch, sign: 1 | -1 = 1): this {
    this.zeros += sign * other.zeros;
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
    const total = this.count;
    if (total <= 0) return undefined;
    const rank = q * (total - 1);
    let seen = this.zeros;
    if (seen > rank) return 0;
    const indexes = [...this.bins.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      seen += this.bins.get(index) ?? 0;
      if (seen > rank) return mapping.value(index);
    }
    return mapping.value(indexes[indexes.length - 1] ?? 0);
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

  static decode(text: string): LatencySketch {
    const sketch = new LatencySketch();
    const [zeros = '0', bins = ''] = text.split('|');
    sketch.zeros = Number(zeros);
    let index = 0;
    bins.split(',').forEach((part, i) => {
      if (!part) return;
      const [offset, count] = part.split(':');
      index = i === 0 ? Number(offset) : index + Number(offset);
      sketch.bins.set(index, Number(count));
    });
    return sketch;
  }

  private bump(index: number, count: number): void {
    const next = (this.bins.get(index) ?? 0) + count;
    if (next === 0) this.bins.delete(index);
    else this.bins.set(index, next);
  }
}
