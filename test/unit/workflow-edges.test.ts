import { describe, expect, it } from 'vitest';
import type { EdgeConditional, EdgeOperator, Operand, WorkflowEdge } from '#shared/workflows/definition.ts';
import { isEdgeTaken } from '#shared/workflows/edges.ts';

/** Edge conditionals as tables: operator, left, right -> taken or not. */
const values: Record<string, unknown> = {
  score: 7,
  text: 'The answer is 42',
  numeric: '7.0',
  answer: '{"verdict": {"ok": true, "score": 3}, "tags": ["a", "b"]}',
  report: { verdict: { ok: false }, items: [{ id: 1 }, { id: 2 }] },
  nothing: null,
};
const readValue = (name: string) => values[name];
const on = (left: unknown, operator: EdgeOperator, right: unknown, position = 0): EdgeConditional => ({
  position,
  operator,
  left_config: { static_value: left },
  right_config: { static_value: right },
});
const edge = (is_and: boolean, ...conditionals: EdgeConditional[]): WorkflowEdge => ({
  source_node_name: 'a',
  target_node_name: 'b',
  is_and,
  conditionals,
});
const taken = (conditional: EdgeConditional) => isEdgeTaken(edge(true, conditional), readValue);

describe('edge operators', () => {
  it.each([
    [1, '=', 1, true],
    [1, '=', '1.0', true],
    [' 2 ', '=', 2, true],
    ['a', '=', 'a', true],
    ['a', '=', 'A', false],
    [true, '=', 'true', false],
    [{ x: [1, { y: 2 }], z: null }, '=', { z: null, x: [1, { y: 2 }] }, true],
    [[1, 2], '=', [2, 1], false],
    [null, '=', null, true],
    [null, '=', 0, false],
    [1, '!=', 2, true],
    ['1', '!=', 1, false],
    [{ a: 1 }, '!=', { a: 1 }, false],
    [2, '<', 3, true],
    ['2', '<', '10', true],
    [3, '<', 3, false],
    [3, '<=', 3, true],
    [4, '>', '3.5', true],
    [3, '>=', 4, false],
    ['abc', '<', 'abd', false],
    [null, '<', 1, false],
    [true, '>', 0, false],
    ['', '>=', 0, false],
    ['b', 'in', ['a', 'b'], true],
    [2, 'in', ['1', '2'], true],
    [{ k: 1 }, 'in', [{ k: 1 }], true],
    ['c', 'in', ['a', 'b'], false],
    ['answer', 'in', 'the answer is', true],
    [42, 'in', 'the answer is 42', true],
    ['x', 'in', 'the answer', false],
    ['x', 'in', null, false],
    [{ a: 1 }, 'in', '{"a":1}', false],
    ['c', 'not_in', ['a', 'b'], true],
    ['a', 'not_in', ['a', 'b'], false],
    ['zz', 'not_in', 'abc', true],
    ['x', 'not_in', null, true],
    [null, 'is_null', 'ignored', true],
    [0, 'is_null', null, false],
    ['', 'is_not_null', null, true],
    [null, 'is_not_null', 'ignored', false],
  ] as const)('%j %s %j is %s', async (left, operator, right, expected) => {
    expect(await taken(on(left, operator, right))).toBe(expected);
  });
});

describe('operands', () => {
  const sourced = (left: Operand, operator: EdgeOperator, right: Operand): EdgeConditional => ({
    position: 0,
    operator,
    left_config: left,
    right_config: right,
  });

  it('reads a source by name, compared with a static value or another source', async () => {
    expect(await taken(sourced({ source: 'score' }, '>', { static_value: 5 }))).toBe(true);
    expect(await taken(sourced({ source: 'score' }, '=', { source: 'numeric' }))).toBe(true);
    expect(await taken(sourced({ static_value: '42' }, 'in', { source: 'text' }))).toBe(true);
  });

  it('reads a missing or null source as null', async () => {
    expect(await taken(sourced({ source: 'unknown' }, 'is_null', { static_value: null }))).toBe(true);
    expect(await taken(sourced({ source: 'nothing' }, 'is_null', { static_value: null }))).toBe(true);
    expect(await taken(sourced({ source: 'unknown' }, '=', { static_value: null }))).toBe(true);
    expect(await taken(sourced({ source: 'unknown' }, '>', { static_value: 0 }))).toBe(false);
  });

  it('follows a json_path to its first match, into an object or a string holding JSON', async () => {
    expect(
      await taken(sourced({ source: 'report', json_path: '$.items[*].id' }, '=', { static_value: 1 })),
    ).toBe(true);
    expect(
      await taken(sourced({ source: 'report', json_path: '$.verdict.ok' }, '=', { static_value: false })),
    ).toBe(true);
    expect(
      await taken(sourced({ source: 'answer', json_path: '$.verdict.score' }, '>=', { static_value: 3 })),
    ).toBe(true);
    expect(await taken(sourced({ static_value: 'b' }, 'in', { source: 'answer', json_path: '$.tags' }))).toBe(
      true,
    );
    expect(
      await taken(
        sourced({ source: 'answer', json_path: '$.items[?@.id > 1]' }, 'is_null', { static_value: 0 }),
      ),
    ).toBe(true);
    expect(
      await taken(
        sourced({ source: 'report', json_path: '$.items[?@.id > 1].id' }, '=', { static_value: 2 }),
      ),
    ).toBe(true);
  });

  it('reads no match, or an invalid stored path, as null', async () => {
    expect(
      await taken(sourced({ source: 'report', json_path: '$.nope' }, 'is_null', { static_value: 0 })),
    ).toBe(true);
    expect(await taken(sourced({ source: 'report', json_path: '$.[' }, 'is_null', { static_value: 0 }))).toBe(
      true,
    );
    expect(await taken(sourced({ source: 'score', json_path: '$.x' }, 'is_null', { static_value: 0 }))).toBe(
      true,
    );
  });
});

describe('combining conditionals', () => {
  const yes = (position: number) => on(1, '=', 1, position);
  const no = (position: number) => on(1, '=', 2, position);

  it('is_and needs every conditional; otherwise any one', async () => {
    expect(await isEdgeTaken(edge(true, yes(0), yes(1)), readValue)).toBe(true);
    expect(await isEdgeTaken(edge(true, yes(0), no(1)), readValue)).toBe(false);
    expect(await isEdgeTaken(edge(false, no(0), yes(1)), readValue)).toBe(true);
    expect(await isEdgeTaken(edge(false, no(0), no(1)), readValue)).toBe(false);
  });

  it('evaluates in position order, not array order', async () => {
    const read: string[] = [];
    const tracing = (name: string) => {
      read.push(name);
      return values[name];
    };
    const reads = (name: string, position: number): EdgeConditional => ({
      position,
      operator: 'is_not_null',
      left_config: { source: name },
      right_config: { static_value: null },
    });
    await isEdgeTaken(edge(true, reads('text', 2), reads('score', 0), reads('report', 1)), tracing);
    expect(read).toEqual(['score', 'report', 'text']);
    read.length = 0;
    // Any: stops at the first that holds, in position order.
    await isEdgeTaken(edge(false, reads('text', 1), reads('score', 0)), tracing);
    expect(read).toEqual(['score']);
  });
});
