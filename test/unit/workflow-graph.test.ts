import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from '#shared/workflows/definition.ts';
import { validateGraph } from '#shared/workflows/graph.ts';
import { planGraph } from '#shared/workflows/plan.ts';

/** Graph rules as a client sees them: the 422's message and the `loc` of each problem. */
const node = (
  name: string,
  dependencies: string[] = [],
  extra: Partial<WorkflowNode> = {},
): WorkflowNode => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'string', value: name } },
  dependencies,
  is_output_node: false,
  ...extra,
});
const output = (name: string, dependencies: string[] = [], extra: Partial<WorkflowNode> = {}) =>
  node(name, dependencies, { is_output_node: true, ...extra });
const edge = (source: string, target: string, extra: Partial<WorkflowEdge> = {}): WorkflowEdge => ({
  source_node_name: source,
  target_node_name: target,
  is_and: true,
  conditionals: [
    {
      position: 0,
      operator: 'is_not_null',
      left_config: { source },
      right_config: { static_value: null },
    },
  ],
  ...extra,
});
const graph = (nodes: WorkflowNode[], edges: WorkflowEdge[] = [], inputs: string[] = []): WorkflowGraph => ({
  nodes,
  edges,
  required_input_variables: Object.fromEntries(inputs.map((name) => [name, 'string'])),
});

async function rejection(g: WorkflowGraph): Promise<AppError> {
  try {
    await validateGraph(g);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(422);
    return error as AppError;
  }
  throw new Error('expected a 422');
}

describe('validateGraph', () => {
  it('accepts a diamond with an input variable, an edge and an unknown node type', async () => {
    await expect(
      validateGraph(
        graph(
          [
            node('a', ['question']),
            node('b', ['a']),
            node('c', ['a'], { node_type: 'HUMAN', configuration: { anything: 1 } }),
            output('d', ['b', 'c']),
          ],
          [edge('a', 'b')],
          ['question'],
        ),
      ),
    ).resolves.toBeUndefined();
  });

  it('refuses more than 200 nodes', async () => {
    const nodes = Array.from({ length: 201 }, (_, i) => output(`n${i}`));
    const error = await rejection(graph(nodes));
    expect(error.message).toBe('Invalid body.nodes: a workflow has at most 200 nodes; this one has 201');
    expect(error.detail).toEqual([{ loc: ['body', 'nodes'], msg: expect.any(String), type: 'too_big' }]);
  });

  it('refuses a duplicate node name, at the second one', async () => {
    const error = await rejection(graph([output('a'), node('b'), node('a')]));
    expect(error.message).toBe('Invalid body.nodes.2.name: node name "a" is used twice (nodes 0 and 2)');
    expect(error.detail?.[0]?.loc).toEqual(['body', 'nodes', 2, 'name']);
  });

  it('refuses a node named like an input variable', async () => {
    const error = await rejection(graph([output('question')], [], ['question']));
    expect(error.message).toMatch(/node "question" has the name of an input variable/);
    expect(error.detail?.[0]?.loc).toEqual(['body', 'nodes', 0, 'name']);
  });

  it('refuses a dependency that is neither a node nor an input variable', async () => {
    const error = await rejection(graph([node('a'), output('b', ['a', 'missing'])], [], ['question']));
    expect(error.message).toBe(
      'Invalid body.nodes.1.dependencies.1: node "b" depends on "missing", which is neither a node nor an input variable of required_input_variables',
    );
    expect(error.detail?.[0]?.loc).toEqual(['body', 'nodes', 1, 'dependencies', 1]);
  });

  it('refuses a cycle through dependencies, naming its nodes in order', async () => {
    const error = await rejection(graph([node('a', ['c']), node('b', ['a']), output('c', ['b'])]));
    expect(error.detail?.[0]?.type).toBe('cycle');
    expect(error.message).toBe(
      'Invalid body.nodes.0.dependencies.0: the graph has a cycle: "a" -> "b" -> "c" -> "a"',
    );
  });

  it('refuses a cycle closed by an edge, located at the edge', async () => {
    const error = await rejection(graph([node('a'), output('b', ['a'])], [edge('b', 'a')]));
    expect(error.message).toBe('Invalid body.edges.0: the graph has a cycle: "a" -> "b" -> "a"');
  });

  it('refuses a node that depends on itself', async () => {
    const error = await rejection(graph([output('a', ['a'])]));
    expect(error.message).toBe('Invalid body.nodes.0.dependencies.0: the graph has a cycle: "a" -> "a"');
  });

  it('refuses a graph without an output node', async () => {
    const error = await rejection(graph([node('a'), node('b', ['a'])]));
    expect(error.message).toBe(
      'Invalid body.nodes: at least one node must be an output node (is_output_node: true)',
    );
  });

  it('refuses an edge naming an unknown source or target', async () => {
    const error = await rejection(
      graph([node('a'), output('b')], [edge('a', 'b'), edge('a', 'ghost'), edge('nobody', 'b')]),
    );
    expect(error.message).toBe(
      'Invalid body.edges.1.target_node_name: edge 1 names "ghost" as its target, which is not a node',
    );
    expect(error.detail?.map((d) => d.loc)).toEqual([
      ['body', 'edges', 1, 'target_node_name'],
      ['body', 'edges', 2, 'source_node_name'],
    ]);
  });

  it('refuses a self edge', async () => {
    const error = await rejection(graph([output('a')], [edge('a', 'a')]));
    expect(error.detail?.[0]).toEqual({
      loc: ['body', 'edges', 0, 'target_node_name'],
      msg: 'edge 0 goes from node "a" to itself',
      type: 'self_edge',
    });
  });

  it('refuses a conditional reading a value the target does not wait for', async () => {
    const reads = (source: string) =>
      edge('a', 'b', {
        conditionals: [
          { position: 0, operator: '=', left_config: { source: 'a' }, right_config: { static_value: 1 } },
          { position: 1, operator: '=', left_config: { static_value: 1 }, right_config: { source } },
        ],
      });
    // The edge's source, an ancestor and an input variable are fine.
    await expect(
      validateGraph(graph([node('z'), node('a', ['z']), output('b')], [reads('z')], ['question'])),
    ).resolves.toBeUndefined();
    await expect(
      validateGraph(graph([node('a'), output('b')], [reads('question')], ['question'])),
    ).resolves.toBeUndefined();
    const sideways = await rejection(graph([node('a'), node('c'), output('b')], [reads('c')]));
    expect(sideways.detail?.[0]?.loc).toEqual([
      'body',
      'edges',
      0,
      'conditionals',
      1,
      'right_config',
      'source',
    ]);
    expect(sideways.message).toMatch(/edge 0 reads node "c", which node "a" does not wait for/);
    const unknown = await rejection(graph([node('a'), output('b')], [reads('nowhere')]));
    expect(unknown.message).toMatch(/edge 0 reads "nowhere", which is neither a node nor an input variable/);
  });

  it('lists every problem found, the first one in the message', async () => {
    const error = await rejection(graph([node('a', ['x']), node('a'), node('b', ['y'])]));
    expect(error.detail?.map((d) => d.type)).toEqual([
      'duplicate_name',
      'missing_output_node',
      'unknown_dependency',
      'unknown_dependency',
    ]);
  });

  it('handles a 200-node chain', async () => {
    const nodes = Array.from({ length: 200 }, (_, i) => node(`n${i}`, i === 0 ? [] : [`n${i - 1}`]));
    nodes[199] = output('n199', ['n198']);
    await expect(validateGraph(graph(nodes))).resolves.toBeUndefined();
    nodes[0] = node('n0', ['n199']);
    expect((await rejection(graph(nodes))).message).toBe(
      'Invalid body.nodes.0.dependencies.0: the graph has a cycle: "n0" -> "n1" -> "n2" -> "n3" -> "n4" -> "n5" -> ... (200 nodes) -> "n197" -> "n198" -> "n199" -> "n0"',
    );
  });
});

describe('planGraph', () => {
  it('lists predecessors, input dependencies, in-edges, successors, roots and outputs', () => {
    const conditional = (position: number) => ({
      position,
      operator: '=' as const,
      left_config: { source: 'a' },
      right_config: { static_value: position },
    });
    const g = graph(
      [
        node('a', ['question']),
        node('b', ['a', 'question', 'question', 'a']),
        node('c'),
        output('d', ['b', 'c']),
        output('e', ['b']),
      ],
      [edge('a', 'd', { conditionals: [conditional(2), conditional(0), conditional(1)] }), edge('c', 'd')],
      ['question'],
    );
    const plan = planGraph(g);
    expect(plan.roots).toEqual(['a', 'c']);
    expect(plan.outputNodes).toEqual(['d', 'e']);
    expect(plan.nodes.get('b')).toMatchObject({ predecessors: ['a'], inputDependencies: ['question'] });
    const d = plan.nodes.get('d');
    expect(d?.predecessors).toEqual(['b', 'c', 'a']);
    expect(d?.inEdges.map((e) => e.source_node_name)).toEqual(['a', 'c']);
    expect(d?.inEdges[0]?.conditionals.map((c) => c.position)).toEqual([0, 1, 2]);
    // The graph given is not reordered.
    expect(g.edges[0]?.conditionals.map((c) => c.position)).toEqual([2, 0, 1]);
    expect(plan.nodes.get('a')?.successors).toEqual(['b', 'd']);
    expect(plan.nodes.get('b')?.successors).toEqual(['d', 'e']);
    expect(plan.nodes.get('c')?.successors).toEqual(['d']);
    expect(plan.nodes.get('e')?.successors).toEqual([]);
  });
});

describe('validateGraph, conditionals', () => {
  it('refuses a json_path that is not JSONPath', async () => {
    const bad = edge('a', 'b', {
      conditionals: [
        {
          position: 0,
          operator: '=',
          left_config: { source: 'a', json_path: '$.items[' },
          right_config: { static_value: 1 },
        },
      ],
    });
    const error = await rejection(graph([node('a'), output('b')], [bad]));
    expect(error.detail?.[0]?.loc).toEqual([
      'body',
      'edges',
      0,
      'conditionals',
      0,
      'left_config',
      'json_path',
    ]);
    expect(error.message).toMatch(
      /^Invalid body\.edges\.0\.conditionals\.0\.left_config\.json_path: edge 0: not a valid JSONPath expression/,
    );
  });
});

describe('validateGraph, node configurations', () => {
  it('refuses a known node type whose configuration fails its schema, located in the configuration', async () => {
    const compare = node('check', ['a'], {
      node_type: 'COMPARE',
      configuration: { sources: ['a'], comparison_type: { type: 'STRING' } },
      is_output_node: true,
    });
    const error = await rejection(graph([node('a'), compare]));
    expect(error.detail?.[0]).toMatchObject({
      loc: ['body', 'nodes', 1, 'configuration', 'sources'],
      type: 'too_small',
    });
    expect(error.message).toMatch(
      /^Invalid body\.nodes\.1\.configuration\.sources: invalid configuration of COMPARE node "check": /,
    );
  });

  it('reports the first few issues of one configuration with their paths', async () => {
    const regex = output('r', [], { node_type: 'REGEX', configuration: { regex_pattern: '(' } });
    const error = await rejection(graph([regex]));
    expect(error.detail?.map((d) => d.loc)).toEqual([
      ['body', 'nodes', 0, 'configuration', 'source'],
      ['body', 'nodes', 0, 'configuration', 'regex_pattern'],
    ]);
    expect(error.detail?.[1]?.msg).toMatch(
      /invalid configuration of REGEX node "r": not a valid regular expression/,
    );
  });

  it('accepts any configuration of a type this service does not run', async () => {
    await expect(
      validateGraph(graph([output('h', [], { node_type: 'MCP', configuration: { x: 1 } })])),
    ).resolves.toBeUndefined();
  });
});
