import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { setProviderKey } from '#shared/providers/keys.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { queryRequestLogs, SHARDS } from '#shared/request-logs/repository.ts';
import { NODE_PORTS } from '#shared/workflows/nodes/ports.ts';
import { executeNode } from '#shared/workflows/nodes/registry.ts';
import { type NodeContext, NodeFailure } from '#shared/workflows/nodes/types.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, publishDirect, uniqueName } from '#test/support/prompts.ts';
import { type Receiver, startReceiver } from '#test/support/receiver.ts';

/**
 * The PROMPT_TEMPLATE, LLM_ASSERTION and ENDPOINT executors with the real ports, against dynalite (the
 * prompt registry, provider keys, request logs) and loopback servers: the LLM stub (OpenAI and Anthropic
 * shapes) and a receiver for ENDPOINT nodes. The deployment's keys and base URLs point at the stub.
 */
const DEPLOYMENT_OPENAI_KEY = 'sk-deployment-openai-0001';
const DEPLOYMENT_ANTHROPIC_KEY = 'sk-ant-deployment-0002';
const ENV_NAMES = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OUTBOUND_ALLOWED_HOSTS',
] as const;

let service: TestService;
let stub: LlmStub;
let receiver: Receiver;
let receiverUrl: string;
let ws: number;
const started = Date.now();
/** Workspaces of their own for tests that set provider keys (no other test sees their keys). */
let nextWorkspace = 990_000 + Math.floor(Math.random() * 1000) * 10;

function setDeploymentEnv() {
  process.env.OPENAI_API_KEY = DEPLOYMENT_OPENAI_KEY;
  process.env.OPENAI_BASE_URL = stub.openaiBaseUrl;
  process.env.ANTHROPIC_API_KEY = DEPLOYMENT_ANTHROPIC_KEY;
  process.env.ANTHROPIC_BASE_URL = stub.anthropicBaseUrl;
  process.env.OUTBOUND_ALLOWED_HOSTS = `${stub.host},${new URL(receiverUrl).host}`;
}

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
  ws = service.workspaceId;
  receiver = await startReceiver(({ path, body, headers }, response) => {
    if (path === '/json')
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: JSON.parse(body), auth: headers.authorization ?? null }));
    if (path === '/text') return response.writeHead(200, { 'content-type': 'text/plain' }).end('plain');
    if (path === '/fail') return response.writeHead(500).end('boom');
    if (path === '/hang') return; // never answers
    response.writeHead(404).end();
  });
  receiverUrl = receiver.url;
  setDeploymentEnv();
});
afterEach(setDeploymentEnv);
afterAll(async () => {
  for (const name of ENV_NAMES) delete process.env[name];
  await Promise.all([service?.stop(), stub?.close(), receiver?.close()]);
});

function context(
  inputs: Record<string, unknown>,
  options: { workspaceId?: number; deadlineMs?: number } = {},
) {
  const nodeName = uniqueName('node');
  const ctx: NodeContext = {
    workspaceId: options.workspaceId ?? ws,
    inputs,
    deadline: Date.now() + (options.deadlineMs ?? 10_000),
    ports: NODE_PORTS,
    origin: { workflowId: 11, workflowVersionNumber: 2, executionId: 33, nodeName },
  };
  return ctx;
}

const run = (nodeType: string, configuration: Record<string, unknown>, ctx: NodeContext) =>
  executeNode({ node_type: nodeType, configuration }, ctx);

/** The node's failure (it must fail). */
async function failure(promise: Promise<unknown>): Promise<NodeFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(NodeFailure);
  return error as NodeFailure;
}

/** The request logs a node wrote (found by the node name in their metadata). */
async function logsOf(ctx: NodeContext): Promise<RequestLogRecord[]> {
  const found: RequestLogRecord[] = [];
  for (const shard of SHARDS) {
    const pages = queryRequestLogs(
      ctx.workspaceId,
      { index: 'GSI1', shard },
      { from: started, to: Date.now() + 60_000 },
      'asc',
    );
    for await (const page of pages)
      found.push(...page.filter((log) => log.metadata.workflow_node_name === ctx.origin?.nodeName));
  }
  return found;
}

const inline = (text: string, model: Record<string, unknown> = { provider: 'openai', name: 'gpt-4o' }) => ({
  inline_template: { inline: true, prompt_template: chat('You are terse.', text), metadata: { model } },
});

describe('PROMPT_TEMPLATE', () => {
  it('renders a registry version with the inputs, answers the model text and logs the call linked to the version', async () => {
    const name = uniqueName('pt');
    const published = await publishDirect(ws, name, chat('You are terse.', 'Q: {question}'));
    const ctx = context({ question: 'what is 2+2?' });

    const value = await run('PROMPT_TEMPLATE', { template: { name } }, ctx);

    expect(value).toBe('Q: what is 2+2?');
    expect(stub.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      apiKey: DEPLOYMENT_OPENAI_KEY,
    });
    expect(stub.requests.at(-1)?.body).toMatchObject({ model: 'gpt-4o', temperature: 0.2 });
    const [log, ...others] = await logsOf(ctx);
    expect(others).toEqual([]);
    expect(log).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      prompt_id: published.id,
      prompt_version_number: 1,
      status: 'SUCCESS',
      prompt_input_variables: { question: 'what is 2+2?' },
      metadata: {
        workflow_id: '11',
        workflow_version_number: '2',
        workflow_version_execution_id: '33',
        workflow_node_name: ctx.origin?.nodeName,
      },
    });
    expect(JSON.stringify(log?.output)).toContain('Q: what is 2+2?');
  });

  it('picks a version by number or label, and maps variables to other inputs', async () => {
    const name = uniqueName('pt-versions');
    await publishDirect(ws, name, chat('s', 'first {question}'), { release_labels: ['prod'] });
    await publishDirect(ws, name, chat('s', 'second {question}'));
    const inputs = { question: 'unused', other: 'mapped' };
    const mappings = { question: 'other' };

    const config = (template: Record<string, unknown>) => ({
      template,
      prompt_template_variable_mappings: mappings,
    });
    expect(await run('PROMPT_TEMPLATE', config({ name }), context(inputs))).toBe('second mapped');
    expect(
      await run('PROMPT_TEMPLATE', config({ prompt_name: name, version_number: 1 }), context(inputs)),
    ).toBe('first mapped');
    expect(await run('PROMPT_TEMPLATE', config({ name, label: 'prod' }), context(inputs))).toBe(
      'first mapped',
    );
  });

  it('fails with the registry message for an unknown template or label, and logs nothing', async () => {
    const ctx = context({});
    const unknown = await failure(run('PROMPT_TEMPLATE', { template: { name: uniqueName('missing') } }, ctx));
    expect(unknown.message).toMatch(/not found/);
    const name = uniqueName('pt-label');
    await publishDirect(ws, name, chat('s', 'x'));
    const label = await failure(run('PROMPT_TEMPLATE', { template: { name, label: 'nope' } }, ctx));
    expect(label.message).toBe(`Label nope of prompt template ${name} not found`);
    expect(await logsOf(ctx)).toEqual([]);
  });

  it('sends to Anthropic when the engine says so, with its key, by plain HTTP', async () => {
    const ctx = context({ question: 'hello' });
    const value = await run(
      'PROMPT_TEMPLATE',
      {
        ...inline('Say {question}'),
        engine: { provider: 'anthropic', model: 'claude-test', parameters: { max_tokens: 50 } },
      },
      ctx,
    );
    expect(value).toBe('Say hello');
    expect(stub.requests.at(-1)).toMatchObject({ path: '/v1/messages', apiKey: DEPLOYMENT_ANTHROPIC_KEY });
    expect(stub.requests.at(-1)?.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 50,
      system: 'You are terse.',
    });
    const [log] = await logsOf(ctx);
    expect(log).toMatchObject({
      provider: 'anthropic',
      model: 'claude-test',
      status: 'SUCCESS',
      prompt_id: null,
    });
  });

  it('calls the Responses API for a template whose model says so', async () => {
    const value = await run(
      'PROMPT_TEMPLATE',
      inline('via responses', { provider: 'openai', name: 'gpt-4o', api_type: 'responses' }),
      context({}),
    );
    expect(value).toBe('via responses');
    expect(stub.requests.at(-1)?.path).toBe('/v1/responses');
  });

  it('logs a WARNING when a variable is missing, and still answers', async () => {
    const ctx = context({});
    expect(await run('PROMPT_TEMPLATE', inline('Hi {name}'), ctx)).toBe('Hi {name}');
    const [log] = await logsOf(ctx);
    expect(log).toMatchObject({ status: 'WARNING', error_type: 'VARIABLE_MISSING_OR_EMPTY' });
  });

  it('fails for a provider nodes cannot call and for a template without a model', async () => {
    const google = await failure(
      run('PROMPT_TEMPLATE', inline('x', { provider: 'google', name: 'gemini' }), context({})),
    );
    expect(google.message).toMatch(/provider google is not supported/);
    const none = await failure(
      run('PROMPT_TEMPLATE', { inline_template: { prompt_template: chat('s', 'x') } }, context({})),
    );
    expect(none.message).toMatch(/no model/);
  });

  describe.each([
    ['openai', { provider: 'openai', name: 'gpt-4o' }],
    ['anthropic', { provider: 'anthropic', name: 'claude-test' }],
  ])('provider errors of %s', (_provider, model) => {
    it.each([
      ['[[stub:status=429]]', 'PROVIDER_RATE_LIMIT'],
      ['[[stub:quota]]', 'PROVIDER_QUOTA_LIMIT'],
      ['[[stub:status=401]]', 'PROVIDER_AUTH_ERROR'],
      ['[[stub:status=403]]', 'PROVIDER_AUTH_ERROR'],
      ['[[stub:status=500]]', 'PROVIDER_ERROR'],
    ])('%s fails the node with %s, the provider answer as raw, and an ERROR log', async (directive, type) => {
      const ctx = context({});
      const error = await failure(run('PROMPT_TEMPLATE', inline(`x ${directive}`, model), ctx));
      expect(error.message.startsWith(`${type}: `)).toBe(true);
      expect(JSON.parse(error.raw ?? '')).toHaveProperty('error');
      const [log] = await logsOf(ctx);
      expect(log).toMatchObject({ status: 'ERROR', error_type: type });
    });

    it('times out before the node deadline', async () => {
      const ctx = context({}, { deadlineMs: 1_500 });
      const error = await failure(run('PROMPT_TEMPLATE', inline('x [[stub:slow=5000]]', model), ctx));
      expect(error.message).toMatch(/^PROVIDER_TIMEOUT: /);
    });
  });

  it('fails with PROVIDER_AUTH_ERROR when neither the workspace nor the deployment has a key', async () => {
    delete process.env.OPENAI_API_KEY;
    const requests = stub.requests.length;
    const error = await failure(run('PROMPT_TEMPLATE', inline('x'), context({})));
    expect(error.message).toMatch(/^PROVIDER_AUTH_ERROR: no openai API key/);
    expect(stub.requests.length).toBe(requests);
  });
});

describe('credentials', () => {
  it("uses the workspace's key over the deployment's, and never shows it in a failure", async () => {
    const workspaceId = nextWorkspace++;
    const key = 'sk-workspace-key-abcd';
    await setProviderKey(workspaceId, 'openai', { api_key: key });
    expect(await run('PROMPT_TEMPLATE', inline('mine'), context({}, { workspaceId }))).toBe('mine');
    expect(stub.requests.at(-1)?.apiKey).toBe(key);

    const error = await failure(
      run('PROMPT_TEMPLATE', inline('x [[stub:status=401]]'), context({}, { workspaceId })),
    );
    expect(`${error.message} ${error.raw}`).not.toContain(key);
  });

  it('a key sealed for another workspace does not open: the node fails with PROVIDER_AUTH_ERROR', async () => {
    const [mine, theirs] = [nextWorkspace++, nextWorkspace++];
    await setProviderKey(mine, 'openai', { api_key: 'sk-mine-0000000001' });
    const copied = await setProviderKey(theirs, 'openai', { api_key: 'sk-theirs-00000002' });
    expect(copied.provider_key.api_key_hint).toBe('...0002');
    const sealedTheirs = await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: { PK: `W#${theirs}#PROVKEY`, SK: 'P#openai' },
        UpdateExpression: 'SET updatedAt = updatedAt',
        ReturnValues: 'ALL_NEW',
      }),
    );
    await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: { PK: `W#${mine}#PROVKEY`, SK: 'P#openai' },
        UpdateExpression: 'SET keySealed = :sealed',
        ExpressionAttributeValues: { ':sealed': sealedTheirs.Attributes?.keySealed },
      }),
    );
    const requests = stub.requests.length;
    const error = await failure(run('PROMPT_TEMPLATE', inline('x'), context({}, { workspaceId: mine })));
    expect(error.message).toMatch(/^PROVIDER_AUTH_ERROR: the workspace's openai key cannot be opened/);
    expect(stub.requests.length).toBe(requests);
  });

  it("calls a workspace's base URL through the outbound guard", async () => {
    const workspaceId = nextWorkspace++;
    await setProviderKey(workspaceId, 'anthropic', {
      api_key: 'sk-ant-workspace-1',
      base_url: stub.anthropicBaseUrl,
    });
    await setProviderKey(workspaceId, 'openai', {
      api_key: 'sk-oai-workspace-1',
      base_url: stub.openaiBaseUrl,
    });
    const claude = inline('guarded', { provider: 'anthropic', name: 'claude-test' });
    // Allowed (OUTBOUND_ALLOWED_HOSTS names the stub): both adapters reach it.
    expect(await run('PROMPT_TEMPLATE', claude, context({}, { workspaceId }))).toBe('guarded');
    expect(stub.requests.at(-1)?.apiKey).toBe('sk-ant-workspace-1');
    expect(await run('PROMPT_TEMPLATE', inline('guarded too'), context({}, { workspaceId }))).toBe(
      'guarded too',
    );
    expect(stub.requests.at(-1)?.apiKey).toBe('sk-oai-workspace-1');
    const slow = await failure(
      run('PROMPT_TEMPLATE', inline('x [[stub:slow=5000]]'), context({}, { workspaceId, deadlineMs: 1_500 })),
    );
    expect(slow.message).toMatch(/^PROVIDER_TIMEOUT: /);

    // Not allowed: a loopback address is refused, whatever the provider.
    delete process.env.OUTBOUND_ALLOWED_HOSTS;
    const requests = stub.requests.length;
    for (const config of [claude, inline('x')]) {
      const refused = await failure(run('PROMPT_TEMPLATE', config, context({}, { workspaceId })));
      expect(refused.message).toMatch(/^PROVIDER_ERROR: .* not allowed/);
    }
    expect(stub.requests.length).toBe(requests);
  });
});

describe('LLM_ASSERTION', () => {
  it('answers a boolean from the model', async () => {
    const yes = context({ text: 'The sky is blue [[stub:reply=true]]' });
    expect(await run('LLM_ASSERTION', { source: 'text', prompt: 'mentions a colour' }, yes)).toBe(true);
    const no = context({ text: 'Nothing [[stub:reply=False.]]', assertion: 'mentions a colour' });
    expect(await run('LLM_ASSERTION', { source: 'text', prompt_source: 'assertion' }, no)).toBe(false);
    expect(stub.requests.at(-1)?.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
  });

  it('answers a dict of booleans for a JSON array of assertions', async () => {
    const prompts = ['is blue [[stub:reply=yes]]', 'is green [[stub:reply=no]]'];
    const value = await run(
      'LLM_ASSERTION',
      { source: 'text', prompt: JSON.stringify(prompts) },
      context({ text: 'sky' }),
    );
    expect(value).toEqual({ [prompts[0] as string]: true, [prompts[1] as string]: false });
  });

  it('fails when the model answers neither true nor false, or the provider fails', async () => {
    const ctx = context({ text: 'x [[stub:reply=perhaps]]' });
    const vague = await failure(run('LLM_ASSERTION', { source: 'text', prompt: 'p' }, ctx));
    expect(vague.message).toMatch(/neither true nor false/);
    const limited = await failure(
      run(
        'LLM_ASSERTION',
        { source: 'text', prompt: 'p', engine: { provider: 'anthropic', model: 'c' } },
        context({ text: '[[stub:status=429]]' }),
      ),
    );
    expect(limited.message).toMatch(/^PROVIDER_RATE_LIMIT: /);
  });
});

describe('ENDPOINT', () => {
  it('POSTs the inputs as JSON and answers the parsed JSON response', async () => {
    const inputs = { question: 'q', upstream: { n: 1 } };
    const value = await run(
      'ENDPOINT',
      { url: `${receiverUrl}/json`, headers: { Authorization: 'Bearer t' } },
      context(inputs),
    );
    expect(value).toEqual({ received: inputs, auth: 'Bearer t' });
  });

  it('answers text for a response that is not JSON', async () => {
    expect(await run('ENDPOINT', { url: `${receiverUrl}/text` }, context({}))).toBe('plain');
  });

  it('fails on a non-2xx answer with its body as raw', async () => {
    const error = await failure(run('ENDPOINT', { url: `${receiverUrl}/fail` }, context({})));
    expect(error.message).toBe('ENDPOINT answered 500');
    expect(error.raw).toBe('boom');
  });

  it('refuses the metadata address and, without the allow list, loopback', async () => {
    const metadata = await failure(
      run('ENDPOINT', { url: 'http://169.254.169.254/latest/meta-data/' }, context({})),
    );
    expect(metadata.message).toMatch(/not allowed/);
    delete process.env.OUTBOUND_ALLOWED_HOSTS;
    const loopback = await failure(run('ENDPOINT', { url: `${receiverUrl}/json` }, context({})));
    expect(loopback.message).toMatch(/not allowed/);
  });

  it('fails when no answer comes before the deadline', async () => {
    const ctx = context({}, { deadlineMs: 1_000 });
    const error = await failure(run('ENDPOINT', { url: `${receiverUrl}/hang` }, ctx));
    expect(error.message).toMatch(/ENDPOINT request failed: .*within/);
  });
});
