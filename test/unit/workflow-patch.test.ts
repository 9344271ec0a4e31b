import { describe, expect, it } from 'vitest';
import { deepMerge, patchedGraph } from '#shared/workflows/patch.ts';
import type { WorkflowVersionRecord } from '#shared/workflows/registry.ts';
import { patchWorkflowBodySchema } from '#shared/workflows/schemas.ts';

const base: WorkflowVersionRecord = {
  id: 10,
  workflow_id: 1,
  workflow_name: 'w',
  number: 3,
  nodes: [
    {
      id: 'n1',
      name: 'a',
      node_type: 'VARIABLE',
      configuration: { value: { type: 'string', value: 'x' } },
      dependencies: [],
      is_output_node: false,
    },
    {
      id: 'n2',
      name: 'b',
      node_type: 'CODE_EXECUTION',
      configuration: { code: 'return 1', language: 'JAVASCRIPT', limits: { ms: 5 } },
      dependencies: ['a'],
      is_output_node: true,
    },
  ],
  edges: [
    { id: 'e1', source_node_name: 'a', target_node_name: 'b', is_and: true, conditionals: [] as never },
  ],
  required_input_variables: { q: 'string' },
  commit_message: null,
  user_id: 1,
  created_at: 0,
};
const patch = (body: unknown) => patchedGraph(base, patchWorkflowBodySchema.parse(body));

describe('a workflow patch', () => {
  it('deep-merges objects and replaces everything else', () => {
    expect(deepMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3], e: null }, f: 2 })).toEqual({
      a: { b: 1, c: [3], e: null },
      d: 1,
      f: 2,
    });
    const merged = deepMerge({}, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps the graph without changes, dropping the stored ids', () => {
    const graph = patch({});
    expect(graph.nodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(graph.nodes[0]).not.toHaveProperty('id');
    expect(graph.edges).toEqual([
      { source_node_name: 'a', target_node_name: 'b', is_and: true, conditionals: [] },
    ]);
    expect(graph.required_input_variables).toEqual({ q: 'string' });
  });

  it('merges a configuration, replaces dependencies and flags, adds a node, removes one and its edges', () => {
    const graph = patch({
      nodes: {
        b: { configuration: { limits: { mb: 64 } }, dependencies: ['q'], is_output_node: false },
        a: null,
        c: { node_type: 'VARIABLE', is_output_node: true },
      },
    });
    expect(graph.nodes).toEqual([
      {
        name: 'b',
        node_type: 'CODE_EXECUTION',
        configuration: { code: 'return 1', language: 'JAVASCRIPT', limits: { ms: 5, mb: 64 } },
        dependencies: ['q'],
        is_output_node: false,
      },
      { name: 'c', node_type: 'VARIABLE', configuration: {}, dependencies: [], is_output_node: true },
    ]);
    expect(graph.edges).toEqual([]);
  });

  it('replaces edges and input variables when given', () => {
    const graph = patch({ edges: [], required_input_variables: {}, nodes: { a: null } });
    expect(graph.edges).toEqual([]);
    expect(graph.required_input_variables).toEqual({});
  });

  it('refuses a new node without a type and the removal of a node that is not there (422)', () => {
    expect(() => patch({ nodes: { z: { configuration: {} } } })).toThrow(
      expect.objectContaining({ status: 422 }),
    );
    expect(() => patch({ nodes: { z: null } })).toThrow(expect.objectContaining({ status: 422 }));
  });
});
