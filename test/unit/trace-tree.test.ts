import { describe, expect, it } from 'vitest';
import { buildSpanTree, planAnswer, type SpanTreeNode, type TreeSpan } from '#shared/traces/tree.ts';

const span = (span_id: string, parent_id: string | null, start: number): TreeSpan => ({
  span_id,
  parent_id,
  start: BigInt(start),
});

/** The tree as nested ids: `a(b,c(d))`. */
function shape(nodes: SpanTreeNode<TreeSpan>[]): string {
  return nodes
    .map((node) =>
      node.children.length > 0 ? `${node.span.span_id}(${shape(node.children)})` : node.span.span_id,
    )
    .join(',');
}

describe('buildSpanTree', () => {
  it.each([
    ['no spans', [], ''],
    ['one root', [span('a', null, 1)], 'a'],
    [
      'children under parents, siblings by start time whatever the input order',
      [span('c', 'a', 30), span('b', 'a', 20), span('a', null, 10), span('d', 'c', 40)],
      'a(b,c(d))',
    ],
    [
      'equal start times ordered by span id',
      [span('r', null, 1), span('y', 'r', 5), span('x', 'r', 5)],
      'r(x,y)',
    ],
    [
      'a span whose parent is missing is a root, in start order',
      [span('a', null, 10), span('o', 'gone', 5), span('b', 'a', 20)],
      'o,a(b)',
    ],
    ['a span naming itself as parent is a root', [span('s', 's', 1)], 's'],
    [
      'a cycle of parent links is cut at its earliest span',
      [span('x', 'y', 2), span('y', 'x', 1), span('z', 'x', 3)],
      'y(x(z))',
    ],
    ['several roots by start time', [span('late', null, 9), span('early', null, 1)], 'early,late'],
  ])('%s', (_, spans, expected) => {
    expect(shape(buildSpanTree(spans))).toBe(expected);
  });

  it('places every span exactly once', () => {
    const spans = [
      ...Array.from({ length: 50 }, (_, i) => span(`c${i}`, `c${(i * 7) % 50}`, i)),
      span('root', null, 100),
    ];
    const ids: string[] = [];
    const walk = (nodes: SpanTreeNode<TreeSpan>[]) => {
      for (const node of nodes) {
        ids.push(node.span.span_id);
        walk(node.children);
      }
    };
    walk(buildSpanTree(spans));
    expect(ids.sort()).toEqual(spans.map((s) => s.span_id).sort());
  });

  it('lists a span deeper than the depth limit among the roots, with its subtree under it', () => {
    const chain = Array.from({ length: 7 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, i));

    expect(shape(buildSpanTree(chain, 2))).toBe('s0(s1(s2)),s3(s4(s5)),s6');
  });

  it('builds a chain of 20,000 spans without exhausting the stack', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, i));

    const roots = buildSpanTree(chain);

    expect(roots).toHaveLength(Math.ceil(20_000 / 101));
  });
});

describe('planAnswer', () => {
  const spans = [span('a', null, 1), span('b', 'a', 2), span('c', 'a', 3)];
  const sizes: Record<string, { summary: number; detail: number }> = {
    a: { summary: 10, detail: 50 },
    b: { summary: 10, detail: 500 },
    c: { summary: 10, detail: 20 },
  };
  const sizeOf = (s: TreeSpan) => sizes[s.span_id]!;

  it('answers everything when it fits', () => {
    const plan = planAnswer(spans, sizeOf, 10_000);

    expect(plan.spans.map((s) => s.span_id)).toEqual(['a', 'b', 'c']);
    expect(plan.withDetail.size).toBe(3);
    expect(plan).toMatchObject({ spansCut: false, detailCut: false });
  });

  it('skips a detail that does not fit and keeps later ones that do', () => {
    const plan = planAnswer(spans, sizeOf, 100);

    expect(plan.spans).toHaveLength(3);
    expect([...plan.withDetail].map((s) => s.span_id).sort()).toEqual(['a', 'c']);
    expect(plan).toMatchObject({ spansCut: false, detailCut: true });
  });

  it('keeps the earliest spans when not even the summaries fit', () => {
    const plan = planAnswer([...spans].reverse(), sizeOf, 25);

    expect(plan.spans.map((s) => s.span_id)).toEqual(['a', 'b']);
    expect(plan.withDetail.size).toBe(0);
    expect(plan).toMatchObject({ spansCut: true, detailCut: true });
  });
});
