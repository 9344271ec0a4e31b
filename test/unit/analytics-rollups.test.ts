import { describe, expect, it } from 'vitest';
import { GRANULARITY_MS, tileWindow } from '#shared/analytics/buckets.ts';
import { logFacts, type RolledUpRecord } from '#shared/analytics/facts.ts';
import { MAX_VALUES_PER_DIMENSION, OTHER_VALUE, RollupContent } from '#shared/analytics/rollup-item.ts';
import { LatencySketch } from '#shared/analytics/sketch.ts';

const HOUR = GRANULARITY_MS.hour;
const DAY = GRANULARITY_MS.day;
const MIN5 = GRANULARITY_MS['5m'];

/** Exact quantile of a sorted sample by the same rank rule as the sketch. */
const exactQuantile = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))]!;

describe('latency sketch', () => {
  it('answers quantiles within 1 % of the exact values', () => {
    const values = Array.from({ length: 5000 }, (_, i) => 5 + ((i * 7919) % 30_000));
    const sketch = new LatencySketch();
    for (const v of values) sketch.add(v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.95, 0.99]) {
      const exact = exactQuantile(sorted, q);
      expect(Math.abs(sketch.quantile(q)! - exact) / exact).toBeLessThanOrEqual(0.0101);
    }
  });

  it('merges into exactly the sketch of all values, and subtracting restores the part', () => {
    const a = new LatencySketch();
    const b = new LatencySketch();
    const all = new LatencySketch();
    for (let i = 0; i < 300; i++) {
      a.add(i * 3);
      all.add(i * 3);
      b.add(1000 + i * 11);
      all.add(1000 + i * 11);
    }
    const merged = new LatencySketch().merge(a).merge(b);
    expect(merged.encode()).toBe(all.encode());
    expect(merged.merge(b, -1).encode()).toBe(a.encode());
    expect(merged.count).toBe(300);
  });

  it('round-trips its compact encoding, zeros included', () => {
    const sketch = new LatencySketch().add(0).add(0).add(12).add(12_000).add(12_000);
    const copy = LatencySketch.decode(sketch.encode());
    expect(copy.encode()).toBe(sketch.encode());
    expect(copy.count).toBe(5);
    expect(copy.quantile(0)).toBe(0);
    expect(LatencySketch.decode(new LatencySketch().encode()).count).toBe(0);
  });
});

describe('window tiling', () => {
  const now = Date.UTC(2026, 10, 28, 12, 7);

  it('tiles 30 days with whole days in the middle and hours and 5-minute buckets at the recent edge', () => {
    const from = Date.UTC(2026, 9, 29, 0, 0);
    const tiling = tileWindow(from, now, now);
    const counts = { day: 0, hour: 0, '5m': 0 };
    for (const tile of tiling.tiles) counts[tile.granularity]++;
    expect(counts).toEqual({ day: 30, hour: 12, '5m': 2 });
    // Contiguous and covering exactly the widened window.
    let at = tiling.fromMs;
    for (const tile of tiling.tiles) {
      expect(tile.start).toBe(at);
      at += GRANULARITY_MS[tile.granularity];
    }
    expect(at).toBe(tiling.toMs);
    expect(tiling.toMs).toBe(Date.UTC(2026, 10, 28, 12, 10));
  });

  it('widens an edge to 5 minutes within the kept 5-minute buckets, to the hour before them', () => {
    const recent = tileWindow(now - 17 * 60_000, now, now);
    expect(recent.fromMs).toBe(Date.UTC(2026, 10, 28, 11, 50));
    expect(recent.tiles.every((t) => t.granularity === '5m')).toBe(true);
    const old = tileWindow(now - 3 * DAY - 17 * 60_000, now - 3 * DAY + 10 * 60_000, now);
    expect(old.tiles.map((t) => t.granularity)).toEqual(['hour', 'hour']);
    expect(old.fromMs % HOUR).toBe(0);
    expect(old.toMs % HOUR).toBe(0);
  });

  it('answers no tile for an empty window', () => {
    expect(tileWindow(now - MIN5, now - MIN5, now).tiles).toEqual([]);
  });
});

const record = (overrides: Partial<RolledUpRecord> = {}): RolledUpRecord => ({
  provider: 'openai',
  model: 'gpt-4o',
  tags: [],
  metadata: {},
  prompt_id: null,
  prompt_name: null,
  prompt_version_number: null,
  input_tokens: 10,
  output_tokens: 5,
  price: 0.25,
  status: 'SUCCESS',
  error_type: null,
  request_start_time: 0,
  request_end_time: 120,
  ...overrides,
});

describe('rollup content', () => {
  it('counts a value beyond the cap under other, and keeps counting there whatever the order', () => {
    const content = new RollupContent();
    for (let i = 0; i <= MAX_VALUES_PER_DIMENSION; i++) {
      content.addFacts('prompts', logFacts(record({ tags: [`t${i}`] })), 1);
    }
    const tags = content.dimensions.get('tag')!;
    expect(tags.size).toBe(MAX_VALUES_PER_DIMENSION + 1);
    expect(tags.get(OTHER_VALUE)?.measures.requests).toBe(1);
    // Its old image leaves other; a new value goes to other too, a held one to itself.
    content.addFacts('prompts', logFacts(record({ tags: [`t${MAX_VALUES_PER_DIMENSION}`] })), -1);
    expect(tags.get(OTHER_VALUE)?.measures.requests).toBe(0);
    content.addFacts('prompts', logFacts(record({ tags: ['new', 't0'] })), 1);
    expect(tags.get(OTHER_VALUE)?.measures.requests).toBe(1);
    expect(tags.get('t0')?.measures.requests).toBe(2);
  });

  it('survives its encoding, with usage subsets and cost in nano-dollars', () => {
    const content = new RollupContent();
    content.addFacts(
      'core',
      logFacts(
        record({
          price: 0.1,
          usage: {
            input_tokens: 100,
            output_tokens: 50,
            cache_read_tokens: 40,
            cache_write_tokens: 10,
            reasoning_tokens: 20,
          },
        }),
      ),
      1,
    );
    content.addFacts('core', logFacts(record({ price: 0.2, status: 'ERROR', error_type: 'timeout' })), 1);
    const copy = RollupContent.decode(content.encode());
    const total = copy.dimensions.get('total')!.get('')!.measures;
    expect(total).toMatchObject({
      requests: 2,
      success: 1,
      error: 1,
      costNanos: 300_000_000,
      inputTokens: 110,
      outputTokens: 55,
      cacheReadTokens: 40,
      cacheWriteTokens: 10,
      reasoningTokens: 20,
      latencyMs: 240,
    });
    expect(copy.dimensions.get('error_type')!.get('timeout')!.measures.requests).toBe(1);
  });
});
