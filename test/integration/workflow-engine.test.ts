import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '#shared/auth/api-keys.ts';
import { MAX_ERROR_CHARS } from '#shared/platform/leased-work.ts';
import type { WorkflowEdge, WorkflowNode } from '#shared/workflows/definition.ts';
import type { FinishedRun } from '#shared/workflows/engine/progress.ts';
import { NODE_LEASE_MS, type NodeMessage } from '#shared/workflows/engine/queue.ts';
import { getExecutionResults } from '#shared/workflows/engine/results.ts';
import { startExecution } from '#shared/workflows/engine/start.ts';
import {
  claimNode,
  countPredecessor,
  finishNode,
  getNode,
  readExecution,
} from '#shared/workflows/engine/store.ts';
import { sweepWorkflowRuns } from '#shared/workflows/engine/watchdog.ts';
import { processNodeMessage, type WorkerDeps } from '#shared/workflows/engine/worker.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import { NodeFailure } from '#shared/workflows/nodes/types.ts';
import type { WorkflowVersion } from '#shared/workflows/store.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { expectErrorLogs } from '#test/support/logs.ts';

/**
 * The engine against dynalite, driven by hand: messages go to an array the test delivers from (in
 * order, twice, out of order, concurrently), so races and redeliveries are exact, not timed.
 */
let service: TestService;
let ws: number;
beforeAll(async () => {
  service = await startTestService();
  ws = (await ensureWorkspace('workflow-engine')).workspaceId;
});
afterAll(() => service?.stop());

let nextWorkflowId = 1000;
/** Every version the tests made: the watchdog sweeps the runs of earlier tests too. */
const allVersions: WorkflowVersion[] = [];

const variable = (name: string, value: unknown, more: Partial<WorkflowNode> = {}): WorkflowNode => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'json', value } },
  dependencies: [],
  is_output_node: false,
  ...more,
});
/** A node that answers its first dependency's value (COALESCE needs two sources). */
const pass = (name: string, dependencies: string[], more: Partial<WorkflowNode> = {}): WorkflowNode => ({
  name,
  node_type: 'COALESCE',
  configuration: { sources: [...dependencies, ...dependencies].slice(0, Math.max(2, dependencies.length)) },
  dependencies,
  is_output_node: false,
  ...more,
});

/**
 * A node with an effect outside the run (an LLM call, a request), as the harness fakes it: it runs under
 * a claim, once. VARIABLE and COALESCE only compute and take no claim.
 */
const effect = (
  name: string,
  dependencies: string[] = [],
  more: Partial<WorkflowNode> = {},
): WorkflowNode => ({
  name,
  node_type: 'EFFECT',
  configuration: {},
  dependencies,
  is_output_node: false,
  ...more,
});

function version(nodes: WorkflowNode[], edges: WorkflowEdge[] = [], required: Record<string, string> = {}) {
  const id = nextWorkflowId++;
  const made = {
    workflow_id: id,
    workflow_name: `wf-${id}`,
    version_id: id,
    version_number: 1,
    graph: { nodes, edges, required_input_variables: required },
    commit_message: null,
    created_at: Date.now(),
  } satisfies WorkflowVersion;
  allVersions.push(made);
  return made;
}

/** An engine whose queue is an array, whose clock the test may move, and that counts executions. */
function harness(_versions: WorkflowVersion[], options: { throwIn?: Set<string> } = {}) {
  const queue: NodeMessage[] = [];
  const runs = new Map<string, number>();
  const reports: FinishedRun[] = [];
  let clock = Date.now();
  const deps: WorkerDeps = {
    now: () => clock,
    loadVersion: async (_ws, workflowId) => {
      const found = allVersions.find((v) => v.workflow_id === workflowId);
      if (!found) throw new Error('no such version');
      return found;
    },
    send: async (messages) => {
      queue.push(...messages);
    },
    finished: async (run) => {
      reports.push(run);
    },
    execute: async (node, context) => {
      runs.set(node.name, (runs.get(node.name) ?? 0) + 1);
      if (options.throwIn?.has(node.name)) throw new Error(`boom in ${node.name}`);
      if (node.node_type === 'EFFECT') return `done by ${node.name}`;
      if (node.node_type === 'FAIL') throw new NodeFailure(`${node.name} failed on purpose`, 'raw detail');
      // What user code may throw (CODE_EXECUTION answers a thrown message whole): larger than an item.
      if (node.node_type === 'FAIL_HUGE') throw new NodeFailure('x'.repeat(600_000), 'y'.repeat(600_000));
      return executeNode(node, context);
    },
    ports: {} as WorkerDeps['ports'],
  };
  const deliver = (message: NodeMessage, receiveCount = 1) =>
    processNodeMessage(message, { receiveCount }, deps);
  /** Delivers every queued message (and those they queue) one at a time, in order. */
  async function drain() {
    for (let message = queue.shift(); message; message = queue.shift()) await deliver(message);
  }
  const start = (v: WorkflowVersion, inputs: Record<string, unknown> = {}, extra = {}) =>
    startExecution(ws, v, { input_variables: inputs, ...extra }, inputs, deps);
  return {
    queue,
    runs,
    reports,
    deps,
    deliver,
    drain,
    start,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const statuses = async (executionId: number) =>
  Object.fromEntries(
    ((await readExecution(ws, executionId))?.nodes ?? []).map((node) => [node.name, node.status]),
  );

describe('the workflow engine on dynalite', () => {
  it('runs a diamond: the fan-in counter schedules the join once, whatever order the branches end in', async () => {
    const v = version([
      variable('a', 1),
      pass('b', ['a']),
      pass('c', ['a']),
      pass('d', ['b', 'c'], { is_output_node: true }),
    ]);
    const h = harness([v]);
    const { executionId, warning } = await h.start(v);
    expect(warning).toBeNull();
    expect(h.queue.map((m) => m.node)).toEqual(['a']);
    await h.deliver(h.queue.shift()!);
    expect(h.queue.map((m) => m.node).sort()).toEqual(['b', 'c']);
    // Both branches at once: exactly one of them leaves d ready.
    const [b, c] = h.queue.splice(0);
    await Promise.all([h.deliver(b!), h.deliver(c!)]);
    expect(h.queue.map((m) => m.node)).toEqual(['d']);
    await h.drain();
    expect(Object.fromEntries(h.runs)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
    expect(h.reports).toHaveLength(1);
    expect(h.reports[0]).toMatchObject({
      status: 'SUCCESS',
      finalOutput: { d: { status: 'SUCCESS', value: 1 } },
    });
    const results = await getExecutionResults(ws, executionId, false);
    expect(results).toEqual({
      status: 200,
      body: {
        d: {
          status: 'SUCCESS',
          value: 1,
          error_message: null,
          raw_error_message: null,
          is_output_node: true,
        },
      },
    });
    expect(Object.keys((await getExecutionResults(ws, executionId, true)).body)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  /** A run of `width` sources and a join on all of them, started. */
  async function startFanIn(width: number) {
    const sources = Array.from({ length: width }, (_, i) => variable(`s${i}`, i));
    const v = version([
      ...sources,
      pass(
        'join',
        sources.map((s) => s.name),
        { is_output_node: true },
      ),
    ]);
    const { executionId } = await harness([v]).start(v);
    return { sources, executionId };
  }

  it('counts each predecessor once under concurrent and repeated decrements: one reaches zero', async () => {
    const { sources, executionId } = await startFanIn(10);
    const counts = await Promise.all(
      [...sources, ...sources].map((s) =>
        countPredecessor(ws, executionId, 'join', s.name, {
          taken: false,
          skipped: false,
          failedDependency: false,
        }),
      ),
    );
    // The repeated sources make the counts that arrive together go one by one.
    const applied = counts.filter((item) => item !== undefined);
    expect(applied).toHaveLength(10);
    expect(applied.filter((item) => typeof item === 'object' && Number(item.pending) === 0)).toHaveLength(1);
    expect((await getNode(ws, executionId, 'join'))?.pending).toBe(0);
  });

  it('counts the predecessors that end together in one write, whose answer goes to one of them', async () => {
    const { sources, executionId } = await startFanIn(10);
    const counts = await Promise.all(
      sources.map((s) =>
        countPredecessor(ws, executionId, 'join', s.name, {
          taken: false,
          skipped: s.name === 's3',
          failedDependency: false,
        }),
      ),
    );
    // The first goes alone; the nine that arrive while it is in flight go in one write.
    const items = counts.filter((count) => typeof count === 'object');
    expect(items.map((item) => Number(item.pending))).toEqual([9, 0]);
    expect(counts.filter((count) => count === 'counted')).toHaveLength(8);
    const join = await getNode(ws, executionId, 'join');
    expect(join).toMatchObject({ pending: 0, skipped: 1 });
    expect([...(join?.resolved ?? [])].sort()).toEqual(sources.map((s) => s.name).sort());
  });

  it('lets one of two concurrent claims win, and runs the node once', async () => {
    const v = version([effect('only', [], { is_output_node: true })]);
    const h = harness([v]);
    await h.start(v);
    const message = h.queue.shift()!;
    await Promise.all([h.deliver(message), h.deliver(message), h.deliver(message)]);
    expect(h.runs.get('only')).toBe(1);
    expect(h.reports).toHaveLength(1);
  });

  it('runs a compute-only node without a claim: concurrent deliveries write one outcome and move on once', async () => {
    const v = version([variable('a', 'x'), effect('b', ['a'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    const message = h.queue.shift()!;
    await Promise.all([h.deliver(message), h.deliver(message), h.deliver(message)]);
    // Each delivery computed it (none claimed it); one wrote it.
    expect(h.runs.get('a')).toBe(3);
    expect(await getNode(ws, executionId, 'a')).toMatchObject({ status: 'SUCCESS', attempt: 1 });
    // b has no other predecessor: a did not count itself on b, its message carries the count.
    expect(h.queue).toEqual([{ ...message, node: 'b', after: { node: 'a', taken: false } }]);
    expect((await getNode(ws, executionId, 'b'))?.pending).toBe(1);
    await h.drain();
    expect(await getNode(ws, executionId, 'b')).toMatchObject({ status: 'SUCCESS', pending: 0 });
    expect([...((await getNode(ws, executionId, 'b'))?.resolved ?? [])]).toEqual(['a']);
    expect(h.runs.get('b')).toBe(1);
    expect(h.reports).toHaveLength(1);
  });

  it('moves on from a compute-only node a redelivery finds written (the first delivery died before moving on)', async () => {
    const v = version([variable('a', 'x'), effect('b', ['a'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    const message = h.queue.shift()!;
    const outcome = { status: 'SUCCESS' as const, valueJson: '"x"' };
    expect(
      await finishNode(
        ws,
        executionId,
        'a',
        outcome,
        { unclaimed: { startedAt: h.deps.now() } },
        h.deps.now(),
      ),
    ).toBe(true);
    await h.deliver(message, 2);
    expect(h.queue.map((m) => m.node)).toEqual(['b']);
    await h.drain();
    expect(await statuses(executionId)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
    expect(h.reports).toHaveLength(1);
  });

  it('sends an only successor again when its message was lost', async () => {
    const v = version([effect('a'), effect('b', ['a'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v, {}, { timeout_seconds: 3600 });
    h.advance(120_000); // the run is older than the requeue delay
    await h.deliver(h.queue.shift()!);
    h.queue.length = 0; // b's message is lost
    await sweepWorkflowRuns(h.deps);
    expect(h.queue.filter((m) => m.executionId === executionId)).toEqual([]); // a ended a moment ago
    h.advance(120_000);
    await sweepWorkflowRuns(h.deps);
    const mine = h.queue.filter((m) => m.executionId === executionId);
    expect(mine).toMatchObject([{ node: 'b', after: { node: 'a', taken: false } }]);
    h.queue.length = 0;
    await h.deliver(mine[0]!);
    expect(await statuses(executionId)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
    expect(h.reports.filter((report) => report.meta.executionId === executionId)).toHaveLength(1);
  });

  it('settles an only successor an earlier version of the engine counted, on a redelivery', async () => {
    const v = version([effect('a'), effect('b', ['a'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    const message = h.queue.shift()!;
    // The earlier engine: a claimed, written, counted on b; then its worker died before sending b.
    const claim = await claimNode(ws, executionId, 'a', h.deps.now(), NODE_LEASE_MS);
    const outcome = { status: 'SUCCESS' as const, valueJson: '"done by a"' };
    expect(await finishNode(ws, executionId, 'a', outcome, { attempt: claim!.attempt! }, h.deps.now())).toBe(
      true,
    );
    const counts = { taken: false, skipped: false, failedDependency: false };
    expect(await countPredecessor(ws, executionId, 'b', 'a', counts)).toMatchObject({ pending: 0 });
    await h.deliver(message, 2);
    expect(h.queue).toEqual([{ ...message, node: 'b' }]);
    await h.drain();
    expect(await statuses(executionId)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
    expect(h.runs.get('b')).toBe(1);
  });

  it('ignores a duplicate delivery after the node finished: no second run, no double count, one report', async () => {
    const v = version([effect('a'), effect('b', ['a']), effect('c', ['b'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    const first = h.queue[0]!;
    await h.drain();
    await h.deliver(first);
    await h.deliver(first, 3);
    expect(Object.fromEntries(h.runs)).toEqual({ a: 1, b: 1, c: 1 });
    expect(h.queue).toEqual([]);
    expect((await getNode(ws, executionId, 'b'))?.pending).toBe(0);
    expect(h.reports).toHaveLength(1);
  });

  it('drops a message that arrives before its node is ready, then runs the node once when it is', async () => {
    const v = version([variable('a', 2), effect('b', ['a'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    const early = { ...h.queue[0]!, node: 'b' };
    await h.deliver(early);
    expect(h.runs.get('b')).toBeUndefined();
    expect((await getNode(ws, executionId, 'b'))?.status).toBe('QUEUED');
    await h.drain();
    await h.deliver(early);
    expect(Object.fromEntries(h.runs)).toEqual({ a: 1, b: 1 });
    expect(await statuses(executionId)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
  });

  it('takes a node over when its lease expired, and refuses the stale attempt its late write', async () => {
    const v = version([effect('slow', [], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v, {}, { timeout_seconds: 3600 });
    const message = h.queue.shift()!;
    // A worker claims the node and dies.
    const dead = await claimNode(ws, executionId, 'slow', h.deps.now(), NODE_LEASE_MS);
    expect(dead?.attempt).toBe(1);
    await h.deliver(message);
    expect(h.runs.get('slow')).toBeUndefined();
    h.advance(NODE_LEASE_MS + 1);
    await h.deliver(message, 2);
    expect(h.runs.get('slow')).toBe(1);
    const stale = await finishNode(
      ws,
      executionId,
      'slow',
      { status: 'FAILED', valueJson: 'null' },
      { attempt: 1 },
      0,
    );
    expect(stale).toBe(false);
    expect(await getNode(ws, executionId, 'slow')).toMatchObject({ status: 'SUCCESS', attempt: 2 });
  });

  it('fails a node on the last delivery of a message that keeps throwing, and skips what depends on it', async () => {
    const errors = expectErrorLogs();
    const v = version([
      variable('a', 1),
      pass('b', ['a']),
      pass('c', ['b']),
      variable('d', 'fine', { is_output_node: true }),
      pass('e', ['c'], { is_output_node: true }),
    ]);
    const h = harness([v], { throwIn: new Set(['b']) });
    const { executionId } = await h.start(v);
    // b's message as a's moving on sends it (b has no other predecessor).
    const bMessage = { ...h.queue[0]!, node: 'b', after: { node: 'a', taken: false } };
    await h.drain().catch(() => undefined);
    // Earlier deliveries throw (and give the lease back at once, so the next one claims the node).
    await expect(h.deliver(bMessage, 2)).rejects.toThrow('boom in b');
    await h.deliver(bMessage, 5);
    await h.drain();
    expect(await statuses(executionId)).toEqual({
      a: 'SUCCESS',
      b: 'FAILED',
      c: 'SKIPPED',
      d: 'SUCCESS',
      e: 'SKIPPED',
    });
    const all = (await getExecutionResults(ws, executionId, true)).body;
    expect(all.b).toMatchObject({ error_message: 'internal error: the node could not be run' });
    expect(all.c).toMatchObject({ error_message: 'skipped: dependency b failed', value: null });
    expect(all.e).toMatchObject({ error_message: 'skipped: every dependency was skipped' });
    expect(h.reports).toMatchObject([{ status: 'SUCCESS', finalOutput: { d: { value: 'fine' } } }]);
    expect(errors).toHaveBeenCalledWith(
      'Workflow node failed on its last delivery: marked FAILED',
      expect.anything(),
    );
    errors.mockRestore();
  });

  it('reports a run FAILED when no output node succeeded, with a NodeFailure message and raw message', async () => {
    const v = version([
      { name: 'bad', node_type: 'FAIL', configuration: {}, dependencies: [], is_output_node: true },
      { name: 'unknown', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: true },
    ]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    await h.drain();
    expect(h.reports).toMatchObject([{ status: 'FAILED' }]);
    const { body } = await getExecutionResults(ws, executionId, false);
    expect(body).toEqual({
      bad: {
        status: 'FAILED',
        value: null,
        error_message: 'bad failed on purpose',
        raw_error_message: 'raw detail',
        is_output_node: true,
      },
      unknown: {
        status: 'FAILED',
        value: null,
        error_message: 'node type HUMAN is not supported',
        raw_error_message: null,
        is_output_node: true,
      },
    });
  });

  it('fails a node at once with a clipped message, however long the message its failure carries', async () => {
    const v = version([
      { name: 'huge', node_type: 'FAIL_HUGE', configuration: {}, dependencies: [], is_output_node: true },
    ]);
    const h = harness([v]);
    const { executionId } = await h.start(v);
    await h.drain();
    expect(h.runs.get('huge')).toBe(1);
    const { body } = await getExecutionResults(ws, executionId, false);
    expect(body.huge).toMatchObject({ status: 'FAILED', value: null });
    expect(body.huge!.error_message).toMatch(/^x{100}/);
    expect(body.huge!.error_message!.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
    expect(body.huge!.raw_error_message!.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
  });

  it('keeps values and input variables over 64 KB in S3 and reads them back', async () => {
    const big = 'x'.repeat(100 * 1024);
    const v = version([pass('copy', ['text', 'text']), pass('out', ['copy'], { is_output_node: true })], [], {
      text: 'string',
    });
    const h = harness([v]);
    const objects = await service.countObjects();
    const { executionId } = await h.start(v, { text: big });
    await h.drain();
    const execution = await readExecution(ws, executionId);
    expect(execution?.meta.inputsKey).toBeDefined();
    expect(execution?.nodes.every((node) => node.valueKey !== undefined)).toBe(true);
    expect(await service.countObjects()).toBe(objects + 3);
    expect((await getExecutionResults(ws, executionId, false)).body.out?.value).toBe(big);
  });

  it('sends again a ready node whose message was lost, and fails what is left at the deadline', async () => {
    const v = version([variable('a', 1), pass('b', ['a']), pass('c', ['b'], { is_output_node: true })]);
    const h = harness([v]);
    const { executionId } = await h.start(v, {}, { timeout_seconds: 600 });
    h.queue.length = 0; // lost
    h.advance(120_000);
    await sweepWorkflowRuns(h.deps);
    const mine = () => h.queue.filter((m) => m.executionId === executionId);
    expect(mine().map((m) => m.node)).toEqual(['a']);
    await h.deliver(mine()[0]!);
    // b's message is lost too, and the run passes its deadline.
    h.queue.length = 0;
    h.advance(600_000);
    await sweepWorkflowRuns(h.deps);
    expect(await statuses(executionId)).toEqual({ a: 'SUCCESS', b: 'FAILED', c: 'SKIPPED' });
    const all = (await getExecutionResults(ws, executionId, true)).body;
    expect(all.b?.error_message).toBe('timed out: the run did not finish within 600 s');
    const reports = () => h.reports.filter((report) => report.meta.executionId === executionId);
    expect(reports()).toMatchObject([{ status: 'FAILED' }]);
    // The run left the watchdog's index: a second sweep does nothing to it (the runs other tests left
    // unfinished on purpose time out now).
    h.advance(600_000);
    await sweepWorkflowRuns(h.deps);
    expect(reports()).toHaveLength(1);
    expect(h.queue.filter((m) => m.executionId === executionId)).toEqual([]);
  });
});
