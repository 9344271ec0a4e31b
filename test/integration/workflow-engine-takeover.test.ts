import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '#shared/auth/api-keys.ts';
import type { WorkflowNode } from '#shared/workflows/definition.ts';
import type { NodeMessage } from '#shared/workflows/engine/queue.ts';
import { getExecutionResults } from '#shared/workflows/engine/results.ts';
import { startExecution } from '#shared/workflows/engine/start.ts';
import { getNode } from '#shared/workflows/engine/store.ts';
import { sweepWorkflowRuns } from '#shared/workflows/engine/watchdog.ts';
import { processNodeMessage, type WorkerDeps } from '#shared/workflows/engine/worker.ts';
import type { WorkflowVersion } from '#shared/workflows/store.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * A worker that dies in the middle of a node (a `kill -9` of `npm start`, a Lambda that crashed) must be
 * taken over soon, well within the run's default deadline: the run continues instead of timing out.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = (await ensureWorkspace('workflow-engine-takeover')).workspaceId;
});
afterAll(() => service?.stop());

/** Nodes with an effect outside the run (faked below): they run under a claim, which a dead worker holds. */
const node = (name: string, dependencies: string[] = []): WorkflowNode => ({
  name,
  node_type: 'EFFECT',
  configuration: {},
  dependencies,
  is_output_node: dependencies.length > 0,
});

describe('a worker that dies mid-node', () => {
  it('is taken over by the watchdog a few minutes later, long before the run deadline', async () => {
    const v: WorkflowVersion = {
      workflow_id: 9901,
      workflow_name: 'takeover',
      version_id: 9901,
      version_number: 1,
      graph: { nodes: [node('a'), node('b', ['a'])], edges: [], required_input_variables: {} },
      commit_message: null,
      created_at: Date.now(),
    };
    const queue: NodeMessage[] = [];
    let clock = Date.now();
    let started: () => void = () => undefined;
    const onceStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let dies = true;
    const deps: WorkerDeps = {
      now: () => clock,
      loadVersion: async () => v,
      send: async (messages) => {
        queue.push(...messages);
      },
      finished: async () => undefined,
      execute: async (n) => {
        if (n.name === 'a' && dies) {
          dies = false;
          started();
          return new Promise(() => undefined); // the process is gone: this never ends
        }
        return n.name;
      },
      ports: {} as WorkerDeps['ports'],
    };
    const { executionId } = await startExecution(ws, v, {}, {}, deps);
    void processNodeMessage(queue.shift()!, { receiveCount: 1 }, deps);
    await onceStarted;
    expect((await getNode(ws, executionId, 'a'))?.status).toBe('RUNNING');

    // Three minutes later (the default deadline is fifteen), the watchdog sends the node again.
    clock += 3 * 60_000;
    await sweepWorkflowRuns(deps);
    expect(queue.map((message) => message.node)).toEqual(['a']);
    for (let message = queue.shift(); message; message = queue.shift())
      await processNodeMessage(message, { receiveCount: 1 }, deps);
    const results = await getExecutionResults(ws, executionId, true);
    expect(results.status).toBe(200);
    expect(results.body).toMatchObject({ a: { status: 'SUCCESS' }, b: { status: 'SUCCESS', value: 'b' } });
  });
});
