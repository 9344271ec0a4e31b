import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '#test/support/receiver.ts';

/**
 * Each node kind run the way a user runs it: `POST /rest/workflows`, `POST /workflows/{name}/run`, then
 * `GET /workflow-version-execution-results` until it answers 200, on one local service. LLM nodes call
 * the loopback stub provider (the deployment's keys and base URLs point at it); ENDPOINT nodes and run
 * callbacks call a loopback receiver allowed through OUTBOUND_ALLOWED_HOSTS.
 */
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
let received: ReceivedRequest[] = [];

function setDeploymentEnv() {
  process.env.OPENAI_API_KEY = 'sk-node-runs-openai-0001';
  process.env.OPENAI_BASE_URL = stub.openaiBaseUrl;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-node-runs-0002';
  process.env.ANTHROPIC_BASE_URL = stub.anthropicBaseUrl;
  process.env.OUTBOUND_ALLOWED_HOSTS = new URL(receiverUrl).host;
}

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
  receiver = await startReceiver(({ path, body }, response) => {
    if (path === '/echo') {
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ got: JSON.parse(body) }));
    }
    response.writeHead(204).end();
  });
  ({ url: receiverUrl, received } = receiver);
  setDeploymentEnv();
});
afterEach(setDeploymentEnv);
afterAll(async () => {
  for (const name of ENV_NAMES) delete process.env[name];
  await Promise.all([service?.stop(), stub?.close(), receiver?.close()]);
});

type Node = Record<string, unknown>;
type NodeResult = {
  status: string;
  value: unknown;
  error_message: string | null;
  raw_error_message: unknown;
};

const node = (
  name: string,
  node_type: string,
  configuration: unknown,
  dependencies: string[] = [],
  more = {},
) => ({
  name,
  node_type,
  configuration,
  dependencies,
  is_output_node: false,
  ...more,
});
const variable = (name: string, value: unknown) => node(name, 'VARIABLE', { value: { type: 'json', value } });
const code = (name: string, body: string, dependencies: string[] = [], more: Record<string, unknown> = {}) =>
  node(
    name,
    'CODE_EXECUTION',
    { code: body, language: 'JAVASCRIPT', timeout_seconds: 2, ...more },
    dependencies,
    {
      is_output_node: true,
    },
  );

/** Creates the workflow (a new one per call), runs it, polls its results until 200: every node's result. */
async function runWorkflow(
  nodes: Node[],
  options: {
    input_variables?: Record<string, unknown>;
    required_input_variables?: Record<string, string>;
  } = {},
): Promise<{ id: number; nodes: Record<string, NodeResult> }> {
  const name = uniqueName('node-run');
  const created = await service.call('POST', '/rest/workflows', {
    body: { name, nodes, required_input_variables: options.required_input_variables ?? {} },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = await service.call('POST', `/workflows/${name}/run`, {
    body: { input_variables: options.input_variables ?? {}, return_all_outputs: true },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const id = started.body.workflow_version_execution_id as number;
  return { id, nodes: await resultsWhenDone(id) };
}

/** Polls the results route as a client does; between polls, lets the queues drain (no sleeping). */
async function resultsWhenDone(id: number): Promise<Record<string, NodeResult>> {
  for (let poll = 0; poll < 20; poll++) {
    const answer = await service.call('GET', '/workflow-version-execution-results', {
      query: { workflow_version_execution_id: id, return_all_outputs: true },
    });
    if (answer.status === 200) return answer.body;
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    await service.messaging.idle();
  }
  throw new Error(`run ${id} still answers 202`);
}

/** The request logs a run's LLM calls wrote (found by search, read by id as a user would). */
async function logsOfRun(id: number): Promise<Record<string, unknown>[]> {
  const search = await service.call('POST', '/api/public/v2/requests/search', {
    body: {
      filter_group: {
        filters: [
          {
            field: 'metadata',
            nested_key: 'workflow_version_execution_id',
            operator: 'key_equals',
            value: String(id),
          },
        ],
      },
    },
  });
  expect(search.status, JSON.stringify(search.body)).toBe(200);
  const logs = [];
  for (const item of search.body.items as { id: number }[]) {
    const log = await service.call('GET', `/api/public/v2/requests/${item.id}`);
    expect(log.status).toBe(200);
    logs.push(log.body);
  }
  return logs;
}

describe('PROMPT_TEMPLATE', () => {
  const anthropicModel = {
    provider: 'anthropic',
    name: 'claude-3-5-haiku-latest',
    parameters: { max_tokens: 64 },
  };
  const template = {
    type: 'chat',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You answer briefly.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Q: {question} about {topic}' }] },
    ],
    input_variables: ['question', 'topic'],
  };

  it.each([
    ['openai', undefined, '/v1/chat/completions'],
    ['anthropic', anthropicModel, '/v1/messages'],
  ])(
    'renders a registry template (%s), sends it and logs the call linked to the prompt version',
    async (_provider, model, path) => {
      const promptName = uniqueName('node-prompt');
      const published = await service.call('POST', '/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: promptName },
          prompt_version: {
            prompt_template: template,
            commit_message: 'v1',
            metadata: { model: model ?? { provider: 'openai', name: 'gpt-4o-mini', parameters: {} } },
          },
        },
      });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      const before = stub.requests.length;
      const { id, nodes } = await runWorkflow(
        [
          variable('topic-node', 'cats'),
          node(
            'ask',
            'PROMPT_TEMPLATE',
            {
              template: { name: promptName },
              prompt_template_variable_mappings: { question: 'q', topic: 'topic-node' },
            },
            ['q', 'topic-node'],
            { is_output_node: true },
          ),
        ],
        { input_variables: { q: 'why purr' }, required_input_variables: { q: 'string' } },
      );
      expect(nodes.ask).toMatchObject({
        status: 'SUCCESS',
        value: 'Q: why purr about cats',
        error_message: null,
      });
      expect(stub.requests.slice(before).map((request) => request.path)).toEqual([path]);

      const logs = await logsOfRun(id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        prompt_id: published.body.id,
        prompt_version_number: 1,
        prompt_input_variables: { question: 'why purr', topic: 'cats' },
        metadata: { workflow_version_execution_id: String(id), workflow_node_name: 'ask' },
        tags: ['workflow'],
        status: 'SUCCESS',
      });
    },
  );

  it('fails with the PROVIDER_* type of a provider error, and without any key before calling', async () => {
    const promptName = uniqueName('node-prompt-errors');
    await publish(service, promptName, {
      type: 'chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: '{question}' }] }],
      input_variables: ['question'],
    });
    const ask = node('ask', 'PROMPT_TEMPLATE', { template: { name: promptName } }, ['question'], {
      is_output_node: true,
    });
    const options = (question: string) => ({
      input_variables: { question },
      required_input_variables: { question: 'string' },
    });

    const unauthorized = await runWorkflow([ask], options('[[stub:status=401]] hi'));
    expect(unauthorized.nodes.ask).toMatchObject({
      status: 'FAILED',
      value: null,
      error_message: expect.stringMatching(/^PROVIDER_AUTH_ERROR: openai answered 401/),
    });
    const limited = await runWorkflow([ask], options('[[stub:status=429]] hi'));
    expect(limited.nodes.ask).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringMatching(/^PROVIDER_RATE_LIMIT: openai answered 429/),
    });
    // The failed call is logged too, as an error of that type.
    const [failedLog] = await logsOfRun(limited.id);
    expect(failedLog).toMatchObject({ status: 'ERROR', error_type: 'PROVIDER_RATE_LIMIT' });
    const anthropic = node(
      'ask',
      'PROMPT_TEMPLATE',
      { template: { name: promptName }, engine: { provider: 'anthropic', model: 'claude-3-5-haiku-latest' } },
      ['question'],
      { is_output_node: true },
    );
    const overloaded = await runWorkflow([anthropic], options('[[stub:status=529]] hi'));
    expect(overloaded.nodes.ask).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringMatching(/^PROVIDER_ERROR: anthropic answered 529/),
    });
    const answered = await runWorkflow([anthropic], options('hello there'));
    expect(answered.nodes.ask).toMatchObject({ status: 'SUCCESS', value: 'hello there' });

    delete process.env.OPENAI_API_KEY;
    const before = stub.requests.length;
    const keyless = await runWorkflow([ask], options('hi'));
    expect(keyless.nodes.ask).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringMatching(/^PROVIDER_AUTH_ERROR: no openai API key/),
    });
    expect(stub.requests.length).toBe(before);
  });
});

describe("a workspace's provider key", () => {
  it('is used, at its base URL through the guarded client, by the next node that runs', async () => {
    process.env.OUTBOUND_ALLOWED_HOSTS = `${new URL(receiverUrl).host},${stub.host}`;
    const put = await service.call('PUT', '/api/public/v2/provider-keys/openai', {
      body: { api_key: 'sk-workspace-own-key-9999', base_url: stub.openaiBaseUrl },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    try {
      const before = stub.requests.length;
      const { nodes } = await runWorkflow([
        variable('text', 'fine'),
        node('check', 'LLM_ASSERTION', { source: 'text', prompt: '[[stub:reply=yes]] ok' }, ['text'], {
          is_output_node: true,
        }),
      ]);
      expect(nodes.check).toMatchObject({ status: 'SUCCESS', value: true });
      expect(stub.requests.slice(before).map((request) => request.apiKey)).toEqual([
        'sk-workspace-own-key-9999',
      ]);
    } finally {
      expect((await service.call('DELETE', '/api/public/v2/provider-keys/openai')).status).toBe(200);
    }
  });
});

describe('LLM_ASSERTION', () => {
  it('answers the boolean the model gives', async () => {
    const { nodes } = await runWorkflow([
      variable('text', 'Thank you kindly.'),
      node(
        'polite',
        'LLM_ASSERTION',
        { source: 'text', prompt: '[[stub:reply=true]] it is polite' },
        ['text'],
        {
          is_output_node: true,
        },
      ),
      node('rude', 'LLM_ASSERTION', { source: 'text', prompt: '[[stub:reply=No.]] it is rude' }, ['text'], {
        is_output_node: true,
      }),
    ]);
    expect(nodes.polite).toMatchObject({ status: 'SUCCESS', value: true });
    expect(nodes.rude).toMatchObject({ status: 'SUCCESS', value: false });
  });
});

describe('CODE_EXECUTION', () => {
  it('runs a function reading the input variables and a dependency value from data', async () => {
    const { nodes } = await runWorkflow(
      [
        variable('base', { n: 2 }),
        code('sum', 'return { total: data.base.n * data.factor, keys: Object.keys(data).sort() };', [
          'base',
          'factor',
        ]),
      ],
      { input_variables: { factor: 21 }, required_input_variables: { factor: 'number' } },
    );
    expect(nodes.sum).toMatchObject({
      status: 'SUCCESS',
      value: { total: 42, keys: ['base', 'factor'] },
      error_message: null,
    });
  });

  it('fails an endless loop at its time limit, a memory bomb, and keeps the host out of reach', async () => {
    const { nodes } = await runWorkflow([
      code('loop', 'while (true) {}', [], { timeout_seconds: 1 }),
      code('bomb', 'const a = []; while (true) a.push(new Array(1e6).fill(1.5));', [], {
        timeout_seconds: 5,
      }),
      code('process', 'return [Object.keys(process), process.env];'),
      code('require', "return require('fs').readFileSync('/etc/passwd', 'utf8');"),
      code('fetch', 'return [typeof fetch, typeof setTimeout];'),
    ]);
    expect(nodes.loop).toMatchObject({
      status: 'FAILED',
      value: null,
      error_message: 'timed out after 1000 ms',
    });
    expect(nodes.bomb).toMatchObject({
      status: 'FAILED',
      error_message: 'memory limit exceeded (64 MB)',
    });
    // process holds the workspace's environment variables only (none here).
    expect(nodes.process).toMatchObject({ status: 'SUCCESS', value: [['env'], {}] });
    expect(nodes.require).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringMatching(/^ReferenceError: require is not defined/),
    });
    expect(nodes.fetch).toMatchObject({ status: 'SUCCESS', value: ['undefined', 'undefined'] });

    // The sandbox was replaced after the kills: the next run's code works.
    const next = await runWorkflow([code('after', 'return 6 * 7;')]);
    expect(next.nodes.after).toMatchObject({ status: 'SUCCESS', value: 42 });
  });

  it('fails PYTHON at run time; a JavaScript run follows', async () => {
    const { nodes } = await runWorkflow([
      node('py', 'CODE_EXECUTION', { code: 'return 1', language: 'PYTHON' }, [], { is_output_node: true }),
    ]);
    expect(nodes.py).toMatchObject({
      status: 'FAILED',
      value: null,
      error_message: 'language PYTHON is not supported',
    });
    const next = await runWorkflow([code('js', "return 'ok';")]);
    expect(next.nodes.js).toMatchObject({ status: 'SUCCESS', value: 'ok' });
  });
});

describe('ENDPOINT', () => {
  it('refuses the metadata address without sending anything', async () => {
    const { nodes } = await runWorkflow([
      variable('x', 1),
      node('meta', 'ENDPOINT', { url: 'http://169.254.169.254/latest/meta-data/' }, ['x'], {
        is_output_node: true,
      }),
    ]);
    expect(nodes.meta).toMatchObject({
      status: 'FAILED',
      value: null,
      error_message: expect.stringMatching(/^ENDPOINT request failed: the address of .* is not allowed/),
    });
  });

  it('POSTs its inputs as JSON to an allowed receiver; the JSON answer is its value', async () => {
    const before = received.length;
    const { nodes } = await runWorkflow(
      [
        variable('x', { a: [1, 2] }),
        node('call', 'ENDPOINT', { url: `${receiverUrl}/echo` }, ['x', 'who'], { is_output_node: true }),
      ],
      { input_variables: { who: 'me' }, required_input_variables: { who: 'string' } },
    );
    expect(nodes.call).toMatchObject({ status: 'SUCCESS', value: { got: { x: { a: [1, 2] }, who: 'me' } } });
    const sent = received.slice(before);
    expect(sent.map((request) => [request.path, request.headers['content-type']])).toEqual([
      ['/echo', expect.stringMatching(/^application\/json/)],
    ]);
  });
});

describe('REGEX, unknown types', () => {
  it('fails a catastrophic pattern within its bound and completes the run', async () => {
    const { nodes } = await runWorkflow([
      variable('text', `${'a'.repeat(40)}!`),
      node('evil', 'REGEX', { source: 'text', regex_pattern: '^(a+)+$' }, ['text']),
      node('after', 'COALESCE', { sources: ['text', 'text'] }, ['text'], { is_output_node: true }),
    ]);
    expect(nodes.evil).toMatchObject({
      status: 'FAILED',
      error_message: 'the regular expression did not finish within 1000 ms',
    });
    expect(nodes.after).toMatchObject({ status: 'SUCCESS', value: `${'a'.repeat(40)}!` });
  });

  it('accepts an MCP node, fails it at run time and skips its dependents', async () => {
    const { nodes } = await runWorkflow([
      node('tool', 'MCP', { server: 'x' }),
      node('next', 'COALESCE', { sources: ['tool', 'tool'] }, ['tool'], { is_output_node: true }),
    ]);
    expect(nodes.tool).toMatchObject({ status: 'FAILED', error_message: 'node type MCP is not supported' });
    expect(nodes.next).toMatchObject({ status: 'SKIPPED', error_message: 'skipped: dependency tool failed' });
  });
});

describe('a callback run with a CODE_EXECUTION node', () => {
  it('POSTs the signed final output to the callback URL', async () => {
    const name = uniqueName('node-callback');
    const created = await service.call('POST', '/rest/workflows', {
      body: {
        name,
        nodes: [code('out', 'return data.n + 1;', ['n'])],
        required_input_variables: { n: 'number' },
      },
    });
    expect(created.status).toBe(201);
    const before = received.length;
    const started = await service.call('POST', `/workflows/${name}/run`, {
      body: { input_variables: { n: 1 }, callback_url: `${receiverUrl}/done` },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await resultsWhenDone(started.body.workflow_version_execution_id);
    await service.messaging.idle();
    const callbacks = received.slice(before);
    expect(callbacks.map((request) => request.path)).toEqual(['/done']);
    const payload = new Webhook(started.body.callback_secret).verify(
      callbacks[0]!.body,
      callbacks[0]!.headers as Record<string, string>,
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
  });
});
