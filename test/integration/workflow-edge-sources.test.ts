import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '#shared/auth/api-keys.ts';
import type { WorkflowEdge, WorkflowNode } from '#shared/workflows/definition.ts';
import type { NodeMessage } from '#shared/workflows/engine/queue.ts';
import { getExecutionResults } from '#shared/workflows/engine/results.ts';
import { startExecution } from '#shared/workflows/engine/start.ts';
import { processNodeMessage, type WorkerDeps } from '#shared/workflows/engine/worker.ts';
import { validateGraph } from '#shared/workflows/graph.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import type { WorkflowVersion } from '#shared/workflows/store.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * A conditional may read any node its edge's source waits for, not only the source's direct
 * dependencies: the edge is evaluated on that node's value, never on a null that stands in for it.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = (await ensureWorkspace('workflow-edge-sources')).workspaceId;
});
afterAll(() => service?.stop());

const variable = (name: string, value: unknown, dependencies: string[] = []): WorkflowNode => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'json', value } },
  dependencies,
  is_output_node: false,
});

describe('an edge reading a node further up than its source', () => {
  it('is evaluated on that node value (a grandparent of the source, an edge-only predecessor)', async () => {
    const reads = (source: string, target: string, node: string, value: unknown): WorkflowEdge => ({
      source_node_name: source,
      target_node_name: target,
      is_and: true,
      conditionals: [
        { position: 0, operator: '=', left_config: { source: node }, right_config: { static_value: value } },
      ],
    });
    // z -> y -> s (dependencies); e -> s by an edge only; s -> t and s -> u by edges reading z and e.
    const graph = {
      nodes: [
        variable('z', 'go'),
        variable('y', 1, ['z']),
        variable('e', 'yes'),
        variable('s', 2, ['y']),
        { ...variable('t', 'ran'), is_output_node: true },
        { ...variable('u', 'ran too'), is_output_node: true },
      ],
      edges: [reads('e', 's', 'e', 'yes'), reads('s', 't', 'z', 'go'), reads('s', 'u', 'e', 'yes')],
      required_input_variables: {},
    };
    await expect(validateGraph(graph)).resolves.toBeUndefined();
    const v: WorkflowVersion = {
      workflow_id: 9902,
      workflow_name: 'edge-sources',
      version_id: 9902,
      version_number: 1,
      graph,
      commit_message: null,
      created_at: Date.now(),
    };
    const queue: NodeMessage[] = [];
    const deps: WorkerDeps = {
      now: () => Date.now(),
      loadVersion: async () => v,
      send: async (messages) => {
        queue.push(...messages);
      },
      finished: async () => undefined,
      execute: executeNode,
      ports: {} as WorkerDeps['ports'],
    };
    const { executionId } = await startExecution(ws, v, {}, {}, deps);
    for (let message = queue.shift(); message; message = queue.shift())
      await processNodeMessage(message, { receiveCount: 1 }, deps);
    const results = await getExecutionResults(ws, executionId, true);
    expect(results.body).toMatchObject({
      s: { status: 'SUCCESS' },
      t: { status: 'SUCCESS', value: 'ran' },
      u: { status: 'SUCCESS', value: 'ran too' },
    });
  });
});
