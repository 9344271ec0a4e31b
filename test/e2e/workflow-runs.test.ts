import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_QUEUES } from '#infra/routes.ts';
import { REQUEUE_AFTER_ENV } from '#shared/workflows/engine/watchdog.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { startReceiver } from '#test/support/receiver.ts';

/**
 * Workflow runs through the local gateway: the run route, the node queue (with its concurrency), the
 * results route, and a run that outlives its service.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

type Node = Record<string, unknown>;
const variable = (name: string, value: unknown, more: Node = {}): Node => ({
  name,
  node_type: 'VARIABLE',
  configuration: { value: { type: 'json', value } },
  dependencies: [],
  is_output_node: false,
  ...more,
});
/** The first non-null of its dependencies (a COALESCE of at least two sources). */
const pass = (name: string, dependencies: string[], more: Node = {}): Node => ({
  name,
  node_type: 'COALESCE',
  configuration: { sources: dependencies.length > 1 ? dependencies : [...dependencies, ...dependencies] },
  dependencies,
  is_output_node: false,
  ...more,
});
const when = (source: string, target: string, operator: string, value: unknown) => ({
  source_node_name: source,
  target_node_name: target,
  is_and: true,
  conditionals: [{ position: 0, operator, left_config: { source }, right_config: { static_value: value } }],
});

/** Creates a workflow (or its next version) through `POST /rest/workflows`: its id. */
async function createWorkflow(
  name: string,
  nodes: Node[],
  extra: Record<string, unknown> = {},
  key?: string,
): Promise<number> {
  const created = await service.call('POST', '/rest/workflows', { body: { name, nodes, ...extra }, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.workflow_id as number;
}

async function run(name: string | number, body: Record<string, unknown> = {}, key?: string) {
  return service.call('POST', `/workflows/${encodeURIComponent(String(name))}/run`, { body, key });
}

async function results(id: number, returnAll?: boolean, key?: string) {
  const query: Record<string, string | number | boolean> = { workflow_version_execution_id: id };
  if (returnAll !== undefined) query.return_all_outputs = returnAll;
  return service.call('GET', '/workflow-version-execution-results', { query, key });
}

/** Runs a workflow and waits until every queue is idle: its results, all nodes. */
async function runToEnd(name: string, body: Record<string, unknown> = {}) {
  const started = await run(name, body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await service.messaging.idle();
  const answer = await results(started.body.workflow_version_execution_id, true);
  expect(answer.status).toBe(200);
  return { started: started.body, all: answer.body as Record<string, Record<string, unknown>> };
}

describe('POST /workflows/{workflow_name}/run and the results', () => {
  it('runs a chain: 201 with the execution id, then 200 with the main output only', async () => {
    await createWorkflow('chain', [
      variable('n0', 'v'),
      ...Array.from({ length: 5 }, (_, i) => pass(`n${i + 1}`, [`n${i}`], { is_output_node: i === 4 })),
    ]);
    const started = await run('chain', { input_variables: {} });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      success: true,
      message: 'Workflow execution started',
      workflow_version_execution_id: expect.any(Number),
      warning: null,
    });
    await service.messaging.idle();
    const main = await results(started.body.workflow_version_execution_id);
    expect(main.status).toBe(200);
    expect(main.body).toEqual({
      n5: {
        status: 'SUCCESS',
        value: 'v',
        error_message: null,
        raw_error_message: null,
        is_output_node: true,
      },
    });
    const finished = service.messaging.events.filter(
      (event) =>
        event.detailType === 'agent_run_finished' &&
        (event.detail.details as { agent_execution_id: number }).agent_execution_id ===
          started.body.workflow_version_execution_id,
    );
    expect(finished.map((event) => event.detail.details)).toEqual([
      {
        agent_name: 'chain',
        agent_id: expect.any(Number),
        agent_version_number: 1,
        agent_execution_id: started.body.workflow_version_execution_id,
        status: 'SUCCESS',
      },
    ]);
  });

  it('runs a diamond and a 50-wide fan-out, every node once', async () => {
    await createWorkflow('diamond', [
      variable('a', 3),
      pass('b', ['a']),
      pass('c', ['a']),
      pass('d', ['b', 'c'], { is_output_node: true }),
    ]);
    const diamond = await runToEnd('diamond');
    expect(Object.values(diamond.all).map((node) => node.status)).toEqual([
      'SUCCESS',
      'SUCCESS',
      'SUCCESS',
      'SUCCESS',
    ]);
    expect(diamond.all.d?.value).toBe(3);

    const branches = Array.from({ length: 50 }, (_, i) => pass(`b${i}`, ['root']));
    await createWorkflow('fan-out', [
      variable('root', 'r'),
      ...branches,
      {
        ...pass(
          'join',
          branches.map((b) => b.name as string),
        ),
        is_output_node: true,
      },
    ]);
    const fan = await runToEnd('fan-out');
    expect(Object.keys(fan.all)).toHaveLength(52);
    expect(Object.values(fan.all).every((node) => node.status === 'SUCCESS')).toBe(true);
    expect(fan.all.join?.value).toBe('r');
  });

  it('takes the branch whose condition holds and skips the other', async () => {
    await createWorkflow(
      'branches',
      [
        pass('x', ['level']),
        variable('high', 'high branch', { is_output_node: true }),
        variable('low', 'low branch', { is_output_node: true }),
        pass('after-low', ['low'], { is_output_node: true }),
      ],
      {
        edges: [when('x', 'high', '>', 3), when('x', 'low', '<=', 3)],
        required_input_variables: { level: 'number' },
      },
    );
    const { all, started } = await runToEnd('branches', { input_variables: { level: 5 } });
    expect(all.high).toMatchObject({ status: 'SUCCESS', value: 'high branch' });
    expect(all.low).toMatchObject({ status: 'SKIPPED', value: null });
    expect(all['after-low']).toMatchObject({
      status: 'SKIPPED',
      error_message: 'skipped: every dependency was skipped',
    });
    const main = await results(started.workflow_version_execution_id, false);
    expect(Object.keys(main.body)).toEqual(['high']);
  });

  it('skips what depends on a failed node; with no output node succeeding, answers every output node', async () => {
    await createWorkflow('failing', [
      { name: 'human', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: false },
      pass('next', ['human'], { is_output_node: true }),
      pass('last', ['next'], { is_output_node: true }),
    ]);
    const { all, started } = await runToEnd('failing');
    expect(all.human).toMatchObject({ status: 'FAILED', error_message: 'node type HUMAN is not supported' });
    expect(all.next).toMatchObject({ status: 'SKIPPED', error_message: 'skipped: dependency human failed' });
    expect(all.last).toMatchObject({ status: 'SKIPPED' });
    const main = await results(started.workflow_version_execution_id);
    expect(Object.keys(main.body)).toEqual(['next', 'last']);
  });

  it('runs by numeric id, a version number or a label; ignores unknown fields; warns of input variables', async () => {
    const id = await createWorkflow('versions', [variable('out', 'one', { is_output_node: true })], {
      required_input_variables: { topic: 'string' },
      release_labels: ['prod'],
    });
    await createWorkflow('versions', [variable('out', 'two', { is_output_node: true })], {
      required_input_variables: { topic: 'string' },
    });
    const byId = await run(id, { input_variables: { other: 1 }, channel_name_suffix: 'abc' });
    expect(byId.status).toBe(201);
    expect(byId.body.warning).toBe('Missing input variables: topic. Unused input variables: other.');
    const byVersion = await run('versions', { workflow_version_number: 1, input_variables: { topic: 't' } });
    const byLabel = await run('versions', { workflow_label_name: 'prod', metadata: { env: 'test' } });
    await service.messaging.idle();
    const value = async (answer: typeof byId) =>
      (await results(answer.body.workflow_version_execution_id)).body.out?.value;
    expect([await value(byId), await value(byVersion), await value(byLabel)]).toEqual(['two', 'one', 'one']);
  });

  it('refuses bad runs with 422 and unknown workflows, versions and labels with 404, writing nothing', async () => {
    await createWorkflow('refusals', [variable('out', 1, { is_output_node: true })]);
    const both = await service.rejected('POST', '/workflows/refusals/run', {
      body: { workflow_label_name: 'prod', workflow_version_number: 1 },
    });
    expect(both.status).toBe(422);
    expect(
      (await service.rejected('POST', '/workflows/refusals/run', { body: { input_variables: [] } })).status,
    ).toBe(422);
    expect(
      (await service.rejected('POST', '/workflows/refusals/run', { body: { timeout_seconds: 3601 } })).status,
    ).toBe(422);
    // Metadata lives on the execution's item: 450,000 characters once answered 500 after writing nodes.
    const huge = await service.rejected('POST', '/workflows/refusals/run', {
      body: { metadata: { note: 'x'.repeat(450_000) } },
    });
    expect(huge.status).toBe(422);
    expect(JSON.stringify(huge.body)).toContain('metadata is at most 65536 bytes');
    for (const url of [
      'https://10.0.0.1/hook',
      'http://example.com/hook',
      'https://localhost/x',
      'not a url',
    ]) {
      const answer = await service.rejected('POST', '/workflows/refusals/run', {
        body: { callback_url: url },
      });
      expect(answer.status, url).toBe(422);
    }
    expect((await service.rejected('POST', '/workflows/nope/run', { body: {} })).status).toBe(404);
    expect((await service.rejected('POST', '/workflows/999999/run', { body: {} })).status).toBe(404);
    expect(
      (await service.rejected('POST', '/workflows/refusals/run', { body: { workflow_version_number: 9 } }))
        .status,
    ).toBe(404);
    expect(
      (await service.rejected('POST', '/workflows/refusals/run', { body: { workflow_label_name: 'nope' } }))
        .status,
    ).toBe(404);
    expect((await results(987654321)).status).toBe(404);
    expect((await service.rejected('GET', '/workflow-version-execution-results', { query: {} })).status).toBe(
      422,
    );
  });

  it('keeps every id of a workspace out of reach of another', async () => {
    const id = await createWorkflow('private', [variable('out', 'secret', { is_output_node: true })]);
    const { started } = await runToEnd('private');
    const other = await service.otherWorkspaceKey('workflow-runs-other');
    expect((await run('private', {}, other)).status).toBe(404);
    expect((await run(id, {}, other)).status).toBe(404);
    expect((await results(started.workflow_version_execution_id, true, other)).status).toBe(404);
    // The same name in the other workspace is its own workflow.
    await createWorkflow('private', [variable('out', 'theirs', { is_output_node: true })], {}, other);
    const theirs = await run('private', {}, other);
    await service.messaging.idle();
    expect((await results(theirs.body.workflow_version_execution_id, false, other)).body.out.value).toBe(
      'theirs',
    );
    expect((await results(theirs.body.workflow_version_execution_id)).status).toBe(404);
  });
});

describe('GET /workflows/{workflow_name}/runs', () => {
  it("lists a workflow's runs newest first with their status, a page at a time after a cursor", async () => {
    const id = await createWorkflow('listed', [
      { name: 'human', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: false },
      variable('out', 'ok', { is_output_node: true }),
    ]);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await runToEnd('listed')).started.workflow_version_execution_id);
    // A run whose output fails: FAILED.
    await createWorkflow('listed', [
      { name: 'human', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: true },
    ]);
    ids.push((await runToEnd('listed')).started.workflow_version_execution_id);

    const list = (
      query: Record<string, string | number> = {},
      key?: string,
      name: string | number = 'listed',
    ) => service.call('GET', `/workflows/${name}/runs`, { query, key });
    const first = await list({ per_page: 3 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.runs[0]).toEqual({
      workflow_version_execution_id: ids[3],
      workflow_version_id: expect.any(Number),
      version_number: 2,
      status: 'FAILED',
      created_at: expect.any(String),
      finished_at: expect.any(String),
    });
    expect(first.body.runs.map((r: { status: string }) => r.status)).toEqual([
      'FAILED',
      'SUCCESS',
      'SUCCESS',
    ]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await list({ per_page: 3, cursor: first.body.next_cursor }, undefined, id);
    const seen = [...first.body.runs, ...second.body.runs].map(
      (r: { workflow_version_execution_id: number }) => r.workflow_version_execution_id,
    );
    expect(seen).toEqual([...ids].reverse());
    expect(second.body.next_cursor).toBeNull();

    expect(
      (await service.rejected('GET', '/workflows/listed/runs', { query: { cursor: 'nope' } })).status,
    ).toBe(422);
    expect(
      (await service.rejected('GET', '/workflows/listed/runs', { query: { per_page: 101 } })).status,
    ).toBe(422);
    expect((await list({}, undefined, 'never-made')).status).toBe(404);
    const other = await service.otherWorkspaceKey('workflow-run-list-other');
    expect((await list({}, other)).status).toBe(404);
    expect((await list({}, other, id)).status).toBe(404);
  });
});

describe('a run with a callback_url', () => {
  it('answers 202 with the callback secret, then POSTs the signed result there', async () => {
    const receiver = await startReceiver();
    const { received } = receiver;
    process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
    try {
      await createWorkflow('called-back', [variable('a', 2), pass('out', ['a'], { is_output_node: true })]);
      const started = await run('called-back', { callback_url: `${receiver.url}/done` });
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({
        success: true,
        warning: null,
        callback_secret: expect.stringMatching(/^whsec_/),
      });
      await service.messaging.idle();
      expect(received).toHaveLength(1);
      const request = received[0]!;
      const payload = new Webhook(started.body.callback_secret).verify(
        request.body,
        request.headers as Record<string, string>,
      );
      expect(payload).toEqual({
        workflow_version_execution_id: started.body.workflow_version_execution_id,
        final_output: {
          out: {
            status: 'SUCCESS',
            value: 2,
            error_message: null,
            raw_error_message: null,
            is_output_node: true,
          },
        },
        result_code: 'OK',
      });
    } finally {
      delete process.env.OUTBOUND_ALLOWED_HOSTS;
      await receiver.close();
    }
  });
});

describe('a run across a restart of the service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptops-workflow-restart-'));
  afterAll(() => {
    delete process.env[REQUEUE_AFTER_ENV];
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 202 while nodes wait, and finishes after the restart (the start-up sweep sends them again)', async () => {
    // The first service's node worker loses every message, as a crash of the process would.
    const losing = await startTestService({
      dataDir,
      jobQueues: {
        ...JOB_QUEUES,
        'workflow-node': {
          ...JOB_QUEUES['workflow-node']!,
          worker: 'test/support/workflow-lost-messages-worker.ts',
        },
      },
    });
    const before = async () => {
      const created = await losing.call('POST', '/rest/workflows', {
        body: {
          name: 'survivor',
          nodes: [variable('a', 'kept'), pass('b', ['a'], { is_output_node: true })],
        },
      });
      expect(created.status).toBe(201);
      const started = await losing.call('POST', '/workflows/survivor/run', { body: {} });
      await losing.messaging.idle();
      const pending = await losing.call('GET', '/workflow-version-execution-results', {
        query: { workflow_version_execution_id: started.body.workflow_version_execution_id },
      });
      return { id: started.body.workflow_version_execution_id as number, pending };
    };
    const { id, pending } = await before();
    await losing.stop();
    expect(pending.status).toBe(202);
    expect(Object.values(pending.body).map((node) => (node as { status: string }).status)).toEqual([
      'QUEUED',
      'QUEUED',
    ]);

    process.env[REQUEUE_AFTER_ENV] = '0';
    const restarted = await startTestService({ dataDir });
    try {
      await restarted.messaging.idle();
      const done = await restarted.call('GET', '/workflow-version-execution-results', {
        query: { workflow_version_execution_id: id },
      });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ b: { status: 'SUCCESS', value: 'kept' } });
    } finally {
      await restarted.stop();
    }
  });
});
