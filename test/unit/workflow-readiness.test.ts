import { describe, expect, it } from 'vitest';
import type { WorkflowEdge, WorkflowNode } from '#shared/workflows/definition.ts';
import { type FanIn, fanInOf, inputWarning, isFinal, readiness } from '#shared/workflows/engine/readiness.ts';

const node = (dependencies: string[]): WorkflowNode => ({
  name: 'target',
  node_type: 'VARIABLE',
  configuration: { value: 1 },
  dependencies,
  is_output_node: true,
});
const edge = (source: string): WorkflowEdge => ({
  source_node_name: source,
  target_node_name: 'target',
  is_and: true,
  conditionals: [
    { position: 0, operator: 'is_not_null', left_config: { source }, right_config: { static_value: null } },
  ],
});
const fanIn = (overrides: Partial<FanIn> = {}): FanIn => ({
  pending: 0,
  taken: 0,
  skipped: 0,
  failedDependencies: [],
  ...overrides,
});

describe('readiness of a node', () => {
  const plain = { node: node(['a', 'b']), predecessors: ['a', 'b'], inEdges: [] };

  it('waits while a predecessor is pending', () => {
    expect(readiness(plain, fanIn({ pending: 1 }))).toEqual({ action: 'wait' });
  });

  it('runs when every predecessor is final and nothing says skip, a SKIPPED one included', () => {
    expect(readiness(plain, fanIn())).toEqual({ action: 'run' });
    expect(readiness(plain, fanIn({ skipped: 1 }))).toEqual({ action: 'run' });
  });

  it('runs a root', () => {
    expect(readiness({ node: node([]), predecessors: [], inEdges: [] }, fanIn())).toEqual({ action: 'run' });
  });

  it('skips a node whose dependency failed, naming the first in declaration order', () => {
    expect(readiness(plain, fanIn({ failedDependencies: ['b', 'a'] }))).toEqual({
      action: 'skip',
      message: 'skipped: dependency a failed',
    });
  });

  it('skips a node whose every predecessor was skipped', () => {
    expect(readiness(plain, fanIn({ skipped: 2 }))).toEqual({
      action: 'skip',
      message: 'skipped: every dependency was skipped',
    });
  });

  it('skips a node with conditional in-edges none of which was taken, and runs it when one was', () => {
    const gated = { node: node([]), predecessors: ['a', 'b'], inEdges: [edge('a'), edge('b')] };
    expect(readiness(gated, fanIn())).toEqual({
      action: 'skip',
      message: 'skipped: no incoming edge condition was met',
    });
    expect(readiness(gated, fanIn({ taken: 1 }))).toEqual({ action: 'run' });
  });

  it('puts a failed dependency before an untaken edge', () => {
    const gated = { node: node(['a']), predecessors: ['a', 'b'], inEdges: [edge('b')] };
    expect(readiness(gated, fanIn({ failedDependencies: ['a'] }))).toMatchObject({
      message: 'skipped: dependency a failed',
    });
  });

  it('reads the counters of a node item, absent ones as zero', () => {
    expect(fanInOf({ pending: 0 })).toEqual(fanIn());
    expect(fanInOf({ pending: 2, taken: 1, skipped: 1, failedDeps: new Set(['x']) })).toEqual(
      fanIn({ pending: 2, taken: 1, skipped: 1, failedDependencies: ['x'] }),
    );
  });

  it('knows the final statuses', () => {
    expect(['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'SKIPPED'].map((s) => isFinal(s as never))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('the input variable warning', () => {
  it('is null when the run gives exactly what the version requires', () => {
    expect(inputWarning({ topic: 'string' }, { topic: 'cats' })).toBeNull();
    expect(inputWarning({}, {})).toBeNull();
  });

  it('names the missing and the unused variables', () => {
    expect(inputWarning({ topic: 'string', tone: 'string' }, { topic: 'x', extra: 1 })).toBe(
      'Missing input variables: tone. Unused input variables: extra.',
    );
    expect(inputWarning({ a: 'string' }, {})).toBe('Missing input variables: a.');
    expect(inputWarning({}, { b: 1, c: 2 })).toBe('Unused input variables: b, c.');
  });
});
