import { PromptLayer } from 'promptlayer';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MAX_PUBLICATION_BYTES } from '#shared/workflows/engine/updates.ts';
import { UPDATES_TOKEN_TTL_SECONDS } from '#shared/workflows/engine/updates-token.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';

/**
 * The official PromptLayer SDK's `runWorkflow` against the local service: the run, the token of
 * `POST /ws-token-request-library`, the Centrifugo-protocol WebSocket at `/connection/websocket` and its
 * publication (inline, or EXCEEDS_SIZE_LIMIT and the SDK's own results fetch); then the token's scope,
 * spoken to the socket directly.
 */
let service: TestService;
let sdk: PromptLayer;
/** Holds each ENDPOINT node's request until the test releases it: a run that is still running. */
let receiver: Receiver;
const held: (() => void)[] = [];
/** Every request the gateway answered, `METHOD /path`. */
const requested: string[] = [];
const resultsFetches = () => requested.filter((line) => line === 'GET /workflow-version-execution-results');
const allowedBefore = process.env.OUTBOUND_ALLOWED_HOSTS;
beforeAll(async () => {
  service = await startTestService({ onAccess: (entry) => requested.push(`${entry.method} ${entry.path}`) });
  receiver = await startReceiver((_, response) =>
    held.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end('"released"')),
  );
  process.env.OUTBOUND_ALLOWED_HOSTS = receiver.host;
  sdk = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
  await createWorkflow(
    'greeter',
    [
      node('greeting', 'CODE_EXECUTION', 'return "Hello, " + data.name + "!"', { is_output_node: true }, [
        'name',
      ]),
      node('shout', 'CODE_EXECUTION', 'return data.name.toUpperCase()', { is_output_node: false }, ['name']),
    ],
    { required_input_variables: { name: 'string' } },
  );
  await createWorkflow('big', [
    node('blob', 'CODE_EXECUTION', `return 'x'.repeat(${MAX_PUBLICATION_BYTES + 1000})`, {
      is_output_node: true,
    }),
  ]);
  await createWorkflow('held', [
    {
      name: 'call',
      node_type: 'ENDPOINT',
      configuration: { url: `${receiver.url}/hold` },
      dependencies: [],
      is_output_node: true,
    },
  ]);
  await createWorkflow('broken', [
    node('fails', 'CODE_EXECUTION', 'throw new Error("the model is on fire")', { is_output_node: true }),
  ]);
});
afterAll(async () => {
  process.env.OUTBOUND_ALLOWED_HOSTS = allowedBefore;
  await Promise.all([service?.stop(), receiver?.close()]);
});
afterEach(() => vi.useRealTimers());

function node(
  name: string,
  type: string,
  code: string,
  more: Record<string, unknown>,
  dependencies: string[] = [],
) {
  return {
    name,
    node_type: type,
    configuration: { code, language: 'JAVASCRIPT', timeout_seconds: 2 },
    dependencies,
    ...more,
  };
}

async function createWorkflow(
  name: string,
  nodes: unknown[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const created = await service.call('POST', '/rest/workflows', { body: { name, nodes, ...extra } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

describe('runWorkflow through the official SDK', () => {
  it('answers the main output node once the run completes, from the publication', async () => {
    const fetchesBefore = resultsFetches().length;
    const result = await sdk.runWorkflow({ workflowName: 'greeter', inputVariables: { name: 'Ada' } });
    expect(result).toEqual({
      greeting: {
        status: 'SUCCESS',
        value: 'Hello, Ada!',
        error_message: null,
        raw_error_message: null,
        is_output_node: true,
      },
    });
    expect(requested).toContain('POST /ws-token-request-library');
    expect(resultsFetches()).toHaveLength(fetchesBefore);
  });

  it('answers every node with returnAllOutputs', async () => {
    const result = await sdk.runWorkflow({
      workflowName: 'greeter',
      inputVariables: { name: 'Grace' },
      returnAllOutputs: true,
    });
    expect(result).toMatchObject({
      greeting: { status: 'SUCCESS', value: 'Hello, Grace!', is_output_node: true },
      shout: { status: 'SUCCESS', value: 'GRACE', is_output_node: false },
    });
  });

  it('fetches a final output too large for a publication (EXCEEDS_SIZE_LIMIT), with and without returnAllOutputs', async () => {
    const fetchesBefore = resultsFetches().length;
    const main = (await sdk.runWorkflow({ workflowName: 'big' })) as Record<string, { value: string }>;
    expect(main.blob?.value).toHaveLength(MAX_PUBLICATION_BYTES + 1000);
    const all = (await sdk.runWorkflow({ workflowName: 'big', returnAllOutputs: true })) as Record<
      string,
      { value: string; status: string }
    >;
    expect(all.blob).toMatchObject({ status: 'SUCCESS' });
    expect(all.blob?.value).toHaveLength(MAX_PUBLICATION_BYTES + 1000);
    // The publication said EXCEEDS_SIZE_LIMIT: the SDK fetched the results, once per run.
    expect(resultsFetches()).toHaveLength(fetchesBefore + 2);
  });

  it('rejects a run whose output node failed, naming the error; returnAllOutputs answers the failure', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(sdk.runWorkflow({ workflowName: 'broken' })).rejects.toThrow(/the model is on fire/);
    error.mockRestore();
    const all = await sdk.runWorkflow({ workflowName: 'broken', returnAllOutputs: true });
    expect(all).toMatchObject({ fails: { status: 'FAILED', is_output_node: true } });
    expect(JSON.stringify(all)).toContain('the model is on fire');
  });
});

/** A run of `greeter`, finished: its execution id. */
async function finishedRun(key?: string): Promise<number> {
  const started = await service.call('POST', '/workflows/greeter/run', {
    body: { input_variables: { name: 'Lin' } },
    key,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await service.messaging.idle();
  return started.body.workflow_version_execution_id as number;
}

async function tokenFor(executionId: number, key?: string): Promise<string> {
  const answer = await service.call('POST', '/ws-token-request-library', {
    query: { capability: `workflow_updates:${executionId}` },
    key,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.token_details.token as string;
}

/** A raw Centrifugo-protocol client: send commands, read replies and pushes in order, see the close. */
async function openSocket() {
  const socket = new WebSocket(`${service.baseUrl.replace('http', 'ws')}/connection/websocket`);
  const received: unknown[] = [];
  const waiting: ((message: any) => void)[] = [];
  socket.on('message', (data) => {
    for (const line of data.toString().split('\n')) {
      const message = JSON.parse(line);
      const next = waiting.shift();
      if (next) next(message);
      else received.push(message);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  return {
    closed,
    next: (): Promise<any> =>
      received.length > 0
        ? Promise.resolve(received.shift())
        : new Promise((resolve) => waiting.push(resolve)),
    command(method: string, params: unknown): number {
      id += 1;
      socket.send(JSON.stringify({ id, [method]: params }));
      return id;
    },
    close: () => socket.close(),
  };
}

describe('the run updates token and socket', () => {
  it('publishes the update to a subscriber when the run completes', async () => {
    const started = await service.call('POST', '/workflows/held/run', { body: {} });
    expect(started.status).toBe(201);
    const executionId = started.body.workflow_version_execution_id as number;
    const socket = await openSocket();
    socket.command('connect', { token: await tokenFor(executionId) });
    await socket.next();
    socket.command('subscribe', { channel: `workflow_updates:${executionId}` });
    expect(await socket.next()).toEqual({ id: 2, subscribe: {} });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    socket.command('publish', { channel: 'nothing', data: {} });
    // The run still waits on its ENDPOINT node: the next message is the answer to this command, no update.
    expect(await socket.next()).toMatchObject({ id: 3, error: { code: 108 } });
    held.shift()?.();
    const push = await socket.next();
    expect(JSON.parse(push.push.pub.data.data)).toEqual({
      result_code: 'OK',
      final_output: { call: expect.objectContaining({ status: 'SUCCESS', value: 'released' }) },
    });
    socket.close();
  });

  it('sends the update of a run that finished before the subscription, once', async () => {
    const executionId = await finishedRun();
    const socket = await openSocket();
    socket.command('connect', { token: await tokenFor(executionId), name: 'test' });
    expect(await socket.next()).toMatchObject({ id: 1, connect: { client: expect.any(String) } });
    socket.command('subscribe', { channel: `workflow_updates:${executionId}` });
    expect(await socket.next()).toEqual({ id: 2, subscribe: {} });
    const push = await socket.next();
    expect(push.push.channel).toBe(`workflow_updates:${executionId}`);
    expect(push.push.pub.data.message_name).toBe('SET_WORKFLOW_COMPLETE');
    expect(JSON.parse(push.push.pub.data.data)).toEqual({
      result_code: 'OK',
      final_output: { greeting: expect.objectContaining({ status: 'SUCCESS', value: 'Hello, Lin!' }) },
    });
    socket.command('subscribe', { channel: `workflow_updates:${executionId}` });
    expect(await socket.next()).toMatchObject({ id: 3, error: { code: 105 } });
    socket.close();
  });

  it('refuses a subscription to another run than the token names', async () => {
    const mine = await finishedRun();
    const other = await finishedRun();
    const socket = await openSocket();
    socket.command('connect', { token: await tokenFor(mine) });
    await socket.next();
    socket.command('subscribe', { channel: `workflow_updates:${other}` });
    expect(await socket.next()).toEqual({ id: 2, error: { code: 103, message: 'permission denied' } });
    socket.close();
  });

  it('gives no token for a run of another workspace, an unknown run, or a malformed capability', async () => {
    const executionId = await finishedRun();
    const otherKey = await service.otherWorkspaceKey('sdk-other');
    const asOther = await service.rejected('POST', '/ws-token-request-library', {
      query: { capability: `workflow_updates:${executionId}` },
      key: otherKey,
    });
    expect(asOther.status).toBe(404);
    const unknown = await service.rejected('POST', '/ws-token-request-library', {
      query: { capability: `workflow_updates:${executionId + 1000}` },
    });
    expect(unknown.status).toBe(404);
    for (const capability of [`workflow_updates:0${executionId}`, `report_updates:${executionId}`, '']) {
      const bad = await service.rejected('POST', '/ws-token-request-library', { query: { capability } });
      expect(bad.status, capability).toBe(422);
    }
    const noKey = await service.rejected('POST', '/ws-token-request-library', {
      query: { capability: `workflow_updates:${executionId}` },
      key: null,
    });
    expect(noKey.status).toBe(401);
  });

  it('closes a connection whose token was altered (another workspace or run written in)', async () => {
    const executionId = await finishedRun();
    const [header, payload, signature] = (await tokenFor(executionId)).split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, ws: claims.ws + 1 })).toString('base64url');
    const socket = await openSocket();
    socket.command('connect', { token: `${header}.${forged}.${signature}` });
    expect(await socket.closed).toEqual({ code: 3500, reason: 'invalid token' });
  });

  it('refuses an expired token (token expired: the client may ask another)', async () => {
    const executionId = await finishedRun();
    const token = await tokenFor(executionId);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + (UPDATES_TOKEN_TTL_SECONDS + 1) * 1000 });
    const socket = await openSocket();
    socket.command('connect', { token });
    expect(await socket.next()).toEqual({ id: 1, error: { code: 109, message: 'token expired' } });
    socket.close();
  });

  it('answers commands it does not serve "not available", and ends a connection that never connected', async () => {
    const executionId = await finishedRun();
    const socket = await openSocket();
    socket.command('connect', { token: await tokenFor(executionId) });
    await socket.next();
    socket.command('publish', { channel: `workflow_updates:${executionId}`, data: {} });
    expect(await socket.next()).toEqual({ id: 2, error: { code: 108, message: 'not available' } });
    socket.close();
    const anonymous = await openSocket();
    anonymous.command('subscribe', { channel: `workflow_updates:${executionId}` });
    expect(await anonymous.closed).toEqual({ code: 3501, reason: 'bad request' });
  });
});
