import type { TestService } from './local-service.ts';

/** Bodies for workflow-definition tests. */

export const variableNode = (name: string, value: string, extra: Record<string, unknown> = {}) => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'string', value } },
  dependencies: [],
  is_output_node: true,
  ...extra,
});

/** A valid POST /rest/workflows body creating (or versioning) `name`; `extra` merges at the top level. */
export function workflowBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, nodes: [variableNode('greeting', 'Hello')], commit_message: 'test', ...extra };
}

/** An edge taken when `source` has a value. */
export const edgeFrom = (source: string, target: string) => ({
  source_node_name: source,
  target_node_name: target,
  is_and: true,
  conditionals: [
    { position: 0, operator: 'is_not_null', left_config: { source }, right_config: { static_value: null } },
  ],
});

/** A two-node graph: `compare` reads `a` and the input `expected`, with an edge from `a` to `compare`. */
export function twoNodeBody(name: string): Record<string, unknown> {
  return {
    name,
    nodes: [
      variableNode('a', 'one', { is_output_node: false }),
      {
        name: 'compare',
        node_type: 'COMPARE',
        configuration: { sources: ['a', 'expected'], comparison_type: { type: 'STRING' } },
        dependencies: ['a', 'expected'],
        is_output_node: true,
      },
    ],
    edges: [edgeFrom('a', 'compare')],
    required_input_variables: { expected: 'string' },
  };
}

/**
 * Runs a workflow through the gateway, lets the queues drain, and answers every node's result (the
 * run itself must answer 201).
 */
export async function runToResults(
  service: TestService,
  workflowName: string,
  inputVariables: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, any> }> {
  const started = await service.call('POST', `/workflows/${encodeURIComponent(workflowName)}/run`, {
    body: { input_variables: inputVariables, return_all_outputs: true },
  });
  if (started.status !== 201)
    throw new Error(`run answered ${started.status}: ${JSON.stringify(started.body)}`);
  await service.messaging.idle();
  return service.call('GET', '/workflow-version-execution-results', {
    query: {
      workflow_version_execution_id: started.body.workflow_version_execution_id,
      return_all_outputs: true,
    },
  });
}
