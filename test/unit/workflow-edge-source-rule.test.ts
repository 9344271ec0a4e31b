import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import type { WorkflowEdge, WorkflowNode } from '#shared/workflows/definition.ts';
import { validateGraph } from '#shared/workflows/graph.ts';

/**
 * An edge is evaluated when its source node ends: a conditional may only read what is final by then
 * (an input variable, the source node, or a node the source waits for), not a node that only the
 * target waits for (a sibling that may still be running).
 */
const node = (name: string, dependencies: string[] = [], is_output_node = false): WorkflowNode => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'json', value: 1 } },
  dependencies,
  is_output_node,
});
const reads = (source: string, target: string, read: string): WorkflowEdge => ({
  source_node_name: source,
  target_node_name: target,
  is_and: true,
  conditionals: [
    { position: 0, operator: '=', left_config: { source: read }, right_config: { static_value: 1 } },
  ],
});

describe('the source a conditional reads', () => {
  it('refuses a node the target waits for but the edge source does not', async () => {
    let error: unknown;
    try {
      await validateGraph({
        nodes: [node('a'), node('c'), node('b', ['c'], true)],
        edges: [reads('a', 'b', 'c')],
        required_input_variables: {},
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toMatch(/edge 0 reads node "c", which node "a" does not wait for/);
  });
});
