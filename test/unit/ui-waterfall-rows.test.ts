import { describe, expect, it } from 'vitest';
import { axisTicks, type SpanNode, waterfallRows } from '../../ui/src/screens/traces/waterfall-rows.ts';

const BASE = 1_772_445_600_000_000_000n;
const span = (id: string, startMs: number, endMs: number, children: SpanNode[] = []): SpanNode => ({
  span_id: id,
  parent_id: null,
  name: id,
  kind: 'SpanKind.INTERNAL',
  start_time_unix_nano: String(BASE + BigInt(startMs) * 1_000_000n),
  end_time_unix_nano: String(BASE + BigInt(endMs) * 1_000_000n),
  duration_ms: endMs - startMs,
  status: { status_code: 'StatusCode.OK', description: null },
  request_log_id: null,
  children,
});

describe("the traces screen's waterfall rows", () => {
  const tree = [span('root', 0, 1000, [span('a', 100, 300, [span('a1', 150, 200)]), span('b', 500, 1000)])];

  it('lists spans depth first, each placed on the shared axis as fractions of the trace', () => {
    expect(
      waterfallRows(tree, new Set()).map((row) => [row.span.span_id, row.depth, row.offset, row.width]),
    ).toEqual([
      ['root', 0, 0, 1],
      ['a', 1, 0.1, 0.2],
      ['a1', 2, 0.15, 0.05],
      ['b', 1, 0.5, 0.5],
    ]);
  });

  it('leaves out the descendants of a collapsed span, and survives a chain deeper than the call stack', () => {
    expect(waterfallRows(tree, new Set(['a'])).map((row) => row.span.span_id)).toEqual(['root', 'a', 'b']);
    let deep = span('leaf', 0, 1);
    for (let i = 0; i < 50_000; i++) deep = span(`s${i}`, 0, 1, [deep]);
    expect(waterfallRows([deep], new Set())).toHaveLength(50_001);
  });

  it('puts axis ticks on round durations', () => {
    expect(axisTicks(1200)).toEqual([0, 500, 1000]);
    expect(axisTicks(45)).toEqual([0, 10, 20, 30, 40]);
    expect(axisTicks(0)).toEqual([0]);
  });
});
