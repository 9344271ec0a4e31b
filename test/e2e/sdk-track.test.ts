import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { OPENAI_MODEL, publish, publishBody, uniqueName } from '#test/support/prompts.ts';
import { CHAT_COMPLETION_WITH_TOOL_CALL } from '#test/support/provider-payloads.ts';

/**
 * The PromptLayer SDK's tracking calls against the local service: `track.*`, `group.create`,
 * `logRequest` with `Date.now()` times, and /track-request as its OpenAI wrapper sends it (to a stub
 * OpenAI server on loopback). What was stored is then read back through our own GET and search routes.
 * The body-key routes are also called over plain HTTP for the refusals (401, 404, 4xx).
 */
let service: TestService;
let pl: PromptLayer;
let stub: Server;
let stubUrl: string;
/** What the stub OpenAI server answers next, by path. */
const stubAnswers = new Map<string, unknown>();

beforeAll(async () => {
  service = await startTestService();
  pl = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
  stub = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = stubAnswers.get(req.url ?? '');
      res.writeHead(answer ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer ?? { error: { message: 'no stub answer' } }));
    });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => stub?.close(resolve));
  await service?.stop();
});

const detail = async (id: number) => {
  const answer = await service.call('GET', `/api/public/v2/requests/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
};

const search = async (filters: unknown[]) =>
  (await service.call('POST', '/api/public/v2/requests/search', { body: { filter_group: { filters } } }))
    .body;

async function logged(overrides: Record<string, unknown> = {}): Promise<number> {
  const created = await service.call('POST', '/log-request', { body: logRequestBody(overrides) });
  expect(created.status).toBe(201);
  return created.body.id;
}

/**
 * The SDK's provider wrappers load the provider SDK with `require`, which its ES module build lacks:
 * they work from its CommonJS build, as in a CommonJS application.
 */
function wrappedOpenAI() {
  const { PromptLayer: CommonJsPromptLayer } = createRequire(import.meta.url)('promptlayer');
  const OpenAI = new CommonJsPromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl }).OpenAI;
  return new OpenAI({ apiKey: 'sk-stub', baseURL: stubUrl });
}

describe('logRequest with Date.now() times', () => {
  it('reads numbers above 1e11 as epoch milliseconds', async () => {
    const start = Date.now() - 1500;
    const end = Date.now();
    const log = await pl.logRequest({
      provider: 'openai',
      model: 'gpt-4o',
      input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
      output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }] },
      request_start_time: start,
      request_end_time: end,
    } as never);
    expect(log?.id).toEqual(expect.any(Number));
    expect(await detail(log!.id)).toMatchObject({
      request_start_time: new Date(start).toISOString(),
      request_end_time: new Date(end).toISOString(),
      latency_ms: end - start,
    });
  });
});

describe('track.* and group.create', () => {
  it('tracks metadata and scores', async () => {
    const id = await logged();
    expect(await pl.track.metadata({ request_id: id, metadata: { session: 's-1', user: 'u-9' } })).toBe(true);
    expect(await pl.track.score({ request_id: id, score: 87 })).toBe(true);
    expect(await pl.track.score({ request_id: id, score: 40, name: 'tone' })).toBe(true);
    expect(await detail(id)).toMatchObject({
      metadata: { session: 's-1', user: 'u-9' },
      score: 87,
      scores: { default: 87, tone: 40 },
    });
    const { items } = await search([
      { field: 'metadata', operator: 'key_equals', nested_key: 'user', value: 'u-9' },
    ]);
    expect(items.map((item: { id: number }) => item.id)).toEqual([id]);
  });

  it('links a log to a prompt version, by version, by label and the latest; searchable by prompt', async () => {
    const name = uniqueName('sdk-track-prompt');
    const first = await publish(service, name);
    const second = await publish(service, name);
    const id = await logged();

    expect(
      await pl.track.prompt({
        request_id: id,
        prompt_name: name,
        prompt_input_variables: { q: 'a' },
        version: 1,
      }),
    ).toBe(true);
    expect(await detail(id)).toMatchObject({
      prompt_id: first.id,
      prompt_name: name,
      prompt_version_number: 1,
      prompt_input_variables: { q: 'a' },
    });
    const { items } = await search([{ field: 'prompt_id', operator: 'eq', value: first.id }]);
    expect(items.map((item: { id: number }) => item.id)).toEqual([id]);

    expect(
      await pl.track.prompt({ request_id: id, prompt_name: name, prompt_input_variables: { q: 'b' } }),
    ).toBe(true);
    expect(await detail(id)).toMatchObject({
      prompt_version_number: second.version_number ?? 2,
      prompt_input_variables: { q: 'b' },
    });
  });

  it('refuses an unknown prompt or version with 404, changing nothing', async () => {
    const id = await logged();
    await expect(
      pl.track.prompt({ request_id: id, prompt_name: uniqueName('missing'), prompt_input_variables: {} }),
    ).rejects.toThrow(/not found/i);
    const name = uniqueName('sdk-track-prompt-v');
    await publish(service, name);
    const answer = await service.call('POST', '/library-track-prompt', {
      key: null,
      body: {
        api_key: service.apiKey,
        request_id: id,
        prompt_name: name,
        prompt_input_variables: {},
        version: 9,
      },
    });
    expect(answer).toMatchObject({ status: 404, body: { success: false, error: 'not_found' } });
    expect((await detail(id)).prompt_id).toBeNull();
  });

  it('keeps every input variable as sent, as log-request does, and refuses ill-formed names with 422', async () => {
    const name = uniqueName('sdk-track-prompt-raw');
    await publish(service, name);
    const id = await logged();
    const variables = JSON.parse('{"__proto__": "p", "constructor": "c", "q": "a"}');

    expect(
      await pl.track.prompt({ request_id: id, prompt_name: name, prompt_input_variables: variables }),
    ).toBe(true);
    const stored = (await detail(id)).prompt_input_variables;
    expect(Object.entries(stored)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['q', 'a'],
    ]);

    for (const body of [{ prompt_name: 's\ud800' }, { prompt_name: name, label: 's\udc00' }]) {
      const answer = await service.call('POST', '/library-track-prompt', {
        key: null,
        body: { api_key: service.apiKey, request_id: id, prompt_input_variables: {}, ...body },
      });
      expect(answer).toMatchObject({ status: 422, body: { error: 'validation_error' } });
    }
  });

  it('creates groups and attaches logs to them; logs are found by group_id', async () => {
    const group = await pl.group.create();
    const other = (await pl.group.create()) as number;
    expect(group).toEqual(expect.any(Number));
    expect(other).not.toBe(group);
    const first = await logged();
    const second = await logged();
    await logged();
    expect(await pl.track.group({ request_id: first, group_id: group as number })).toBe(true);
    expect(await pl.track.group({ request_id: second, group_id: group as number })).toBe(true);

    // log-request takes group_id too; an unknown group is a 404 and nothing is stored.
    const third = await logged({ group_id: group });
    const unknown = await service.rejected('POST', '/log-request', {
      body: logRequestBody({ group_id: other + 1000 }),
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });

    expect(await detail(first)).toMatchObject({ group_id: group });
    const { items } = await search([{ field: 'group_id', operator: 'eq', value: group }]);
    expect(items.map((item: { id: number }) => item.id).sort()).toEqual([first, second, third].sort());
  });

  it('answers 404 for an unknown group, and for a log or group of another workspace', async () => {
    const id = await logged();
    const group = (await pl.group.create()) as number;
    await expect(pl.track.group({ request_id: id, group_id: group + 100_000 })).rejects.toThrow(
      /Group .* not found/,
    );

    const otherKey = await service.otherWorkspaceKey('sdk-track-other');
    const other = new PromptLayer({ apiKey: otherKey, baseURL: service.baseUrl });
    await expect(other.track.metadata({ request_id: id, metadata: { a: 'b' } })).rejects.toThrow(/not found/);
    await expect(other.track.score({ request_id: id, score: 1 })).rejects.toThrow(/not found/);
    const otherGroup = (await other.group.create()) as number;
    await expect(pl.track.group({ request_id: id, group_id: otherGroup })).rejects.toThrow(/not found/);
    expect(await detail(id)).toMatchObject({ metadata: {}, score: 0, group_id: null });
  });
});

const CHAT_COMPLETION = CHAT_COMPLETION_WITH_TOOL_CALL;

const RESPONSE = {
  id: 'resp_1',
  object: 'response',
  created_at: 1_732_000_000,
  status: 'completed',
  model: 'gpt-4.1-2025-04-14',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Bonjour !', annotations: [] }],
    },
  ],
  usage: { input_tokens: 12, output_tokens: 4, total_tokens: 16 },
};

describe('/track-request through the SDK OpenAI wrapper', () => {
  it('logs a chat completion with tool calls and answers the log id', async () => {
    stubAnswers.set('/v1/chat/completions', CHAT_COMPLETION);
    const group = (await pl.group.create()) as number;
    const client = wrappedOpenAI();
    const [response, requestId] = await client.chat.completions.create({
      model: 'gpt-4o',
      temperature: 0.3,
      messages: [
        { role: 'system', content: 'You answer about weather.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      pl_tags: ['sdk', 'weather'],
      return_pl_id: true,
    });
    expect(response.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
    expect(requestId).toEqual(expect.any(Number));

    const log = await detail(requestId);
    expect(log).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      function_name: 'openai.chat.completions.create',
      api_type: 'chat-completions',
      input_tokens: 120,
      output_tokens: 18,
      tags: ['sdk', 'weather'],
      parameters: { model: 'gpt-4o', temperature: 0.3, tools: [expect.any(Object)] },
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You answer about weather.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        ],
      },
      output: {
        type: 'chat',
        messages: [
          {
            role: 'assistant',
            content: [],
            tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
        ],
      },
    });
    expect(log.parameters).not.toHaveProperty('messages');
    expect(JSON.stringify(log)).not.toContain(service.apiKey);

    // Found by its tool and tags; attached to a group afterwards.
    const { items } = await search([
      { field: 'tool_names', operator: 'contains', value: 'get_weather' },
      { field: 'tags', operator: 'contains', value: 'weather' },
    ]);
    expect(items.map((item: { id: number }) => item.id)).toEqual([requestId]);
    await pl.track.group({ request_id: requestId, group_id: group });
    expect((await detail(requestId)).group_id).toBe(group);
  });

  it('logs a Responses API call', async () => {
    stubAnswers.set('/v1/responses', RESPONSE);
    const [response, requestId] = await wrappedOpenAI().responses.create({
      model: 'gpt-4.1',
      instructions: 'Answer in French.',
      input: 'Hello!',
      return_pl_id: true,
    });
    expect(response.id).toBe('resp_1');
    expect(await detail(requestId)).toMatchObject({
      function_name: 'openai.responses.create',
      model: 'gpt-4.1-2025-04-14',
      api_type: 'responses',
      input_tokens: 12,
      output_tokens: 4,
      input: {
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hello!' }] },
        ],
      },
      output: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Bonjour !' }] }] },
    });
  });
});

/** A /track-request body as the SDK's run() sends it (its request and the provider's response). */
function runBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Date.now();
  return {
    api_key: service.apiKey,
    function_name: 'anthropic.messages.create',
    provider_type: 'anthropic',
    args: [],
    kwargs: {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      stream: false,
    },
    request_response: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        { type: 'thinking', thinking: 'Use the tool.', signature: 'sig' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 20, output_tokens: 9 },
    },
    request_start_time: new Date(now - 800).toISOString(),
    request_end_time: new Date(now).toISOString(),
    tags: ['run'],
    metadata: { flow: 'weather' },
    return_prompt_blueprint: true,
    span_id: 'a1b2c3d4e5f60718',
    ...overrides,
  };
}

describe('POST /track-request as run() sends it', () => {
  it('logs an Anthropic call with its prompt version and group; answers the blueprint', async () => {
    const name = uniqueName('sdk-run');
    const template = await publish(service, name);
    const group = (await pl.group.create()) as number;
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: runBody({
        prompt_id: template.id,
        prompt_version: 1,
        prompt_input_variables: { question: 'Weather in Paris?' },
        group_id: group,
      }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      request_id: expect.any(Number),
      prompt_blueprint: {
        prompt_template: {
          type: 'chat',
          messages: [
            { role: 'system' },
            { role: 'user' },
            { role: 'assistant', content: [{ type: 'thinking', thinking: 'Use the tool.' }] },
          ],
        },
        metadata: { model: { provider: 'anthropic', name: 'claude-sonnet-4-5-20250929' } },
      },
    });
    const log = await detail(answer.body.request_id);
    expect(log).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
      prompt_id: template.id,
      prompt_name: name,
      prompt_version_number: 1,
      prompt_input_variables: { question: 'Weather in Paris?' },
      group_id: group,
      span_id: 'a1b2c3d4e5f60718',
      tags: ['run'],
      metadata: { flow: 'weather' },
      input_tokens: 20,
      output_tokens: 9,
      parameters: { max_tokens: 1024, model: 'claude-sonnet-4-5', stream: false },
      output: {
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'toolu_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
        ],
      },
    });
    expect(log.parameters).not.toHaveProperty('system');
  });

  it("never stores or answers the provider credentials run() leaves in kwargs (a custom provider's api_key)", async () => {
    const secrets = ['sk-ant-secret-1', 'aws-secret-2', 'aws-access-3', 'aws-session-4'];
    for (const function_name of ['anthropic.messages.create', 'unknown.provider.call']) {
      const answer = await service.call('POST', '/track-request', {
        key: null,
        body: runBody({
          function_name,
          kwargs: {
            model: 'claude-sonnet-4-5',
            max_tokens: 64,
            messages: [{ role: 'user', content: 'Hi' }],
            apiKey: secrets[0],
            baseURL: 'https://proxy.example',
            aws_secret_key: secrets[1],
            aws_access_key: secrets[2],
            aws_session_token: secrets[3],
          },
        }),
      });
      expect(answer.status).toBe(200);
      const log = await detail(answer.body.request_id);
      expect(log.parameters).toMatchObject({ max_tokens: 64, baseURL: 'https://proxy.example' });
      for (const text of [JSON.stringify(answer.body), JSON.stringify(log)]) {
        for (const secret of secrets) expect(text).not.toContain(secret);
      }
    }
  });

  it('names prompt_version, the field the SDK sends, when that version does not exist', async () => {
    const name = uniqueName('sdk-run-version');
    const template = await publish(service, name);
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: runBody({ prompt_id: template.id, prompt_version: 99 }),
    });
    expect(answer).toMatchObject({ status: 422, body: { error: 'validation_error' } });
    expect(answer.body.message).toContain('body.prompt_version:');
    expect(answer.body.detail[0].loc).toEqual(['body', 'prompt_version']);
  });

  it('logs a failed provider call as run() reports it (status ERROR, empty response)', async () => {
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: runBody({
        request_response: {},
        status: 'ERROR',
        error_type: 'PROVIDER_RATE_LIMIT',
        error_message: `429 Rate limit reached. ${'x'.repeat(2000)}`,
      }),
    });
    expect(answer.status).toBe(200);
    const log = await detail(answer.body.request_id);
    expect(log).toMatchObject({
      status: 'ERROR',
      error_type: 'PROVIDER_RATE_LIMIT',
      output: { messages: [] },
    });
    expect(log.error_message.length).toBeLessThanOrEqual(1024);
    const { items } = await search([{ field: 'status', operator: 'is', value: 'ERROR' }]);
    expect(items.map((item: { id: number }) => item.id)).toContain(answer.body.request_id);
  });

  it('keeps a call of an unknown provider with its raw request and response', async () => {
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: runBody({
        function_name: 'mistral.client.chat',
        provider_type: 'mistral',
        kwargs: { model: 'mistral-large', prompt_text: 'hi' },
        request_response: { result: 'hello' },
      }),
    });
    expect(answer.status).toBe(200);
    expect(await detail(answer.body.request_id)).toMatchObject({
      provider: 'mistral',
      model: 'mistral-large',
      parameters: { model: 'mistral-large', prompt_text: 'hi' },
      extra: { request_response: { result: 'hello' } },
    });
  });
});

describe('run()', () => {
  it('fetches the rendered template, calls OpenAI with it and logs the call through /track-request, with prompt, group and tags', async () => {
    stubAnswers.set('/v1/chat/completions', {
      ...CHAT_COMPLETION,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny.' }, finish_reason: 'stop' }],
    });
    const name = uniqueName('sdk-run-openai');
    const body = publishBody(name);
    const version = body.prompt_version as Record<string, unknown>;
    version.metadata = { model: { ...OPENAI_MODEL, api_type: 'chat-completions' } };
    const published = await service.call('POST', '/rest/prompt-templates', { body });
    expect(published.status).toBe(200);
    const template = published.body;
    const group = (await pl.group.create()) as number;
    const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
    process.env.OPENAI_BASE_URL = stubUrl;
    process.env.OPENAI_API_KEY = 'sk-stub';
    try {
      // run() loads the provider SDK with require: the SDK's CommonJS build (see wrappedOpenAI).
      const { PromptLayer: CommonJsPromptLayer } = createRequire(import.meta.url)('promptlayer');
      const runner = new CommonJsPromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl });
      const result = await runner.run({
        promptName: name,
        inputVariables: { question: 'Weather?' },
        tags: ['run-e2e'],
        metadata: { flow: 'run' },
        groupId: group,
      });
      expect(result).toMatchObject({
        request_id: expect.any(Number),
        raw_response: { id: CHAT_COMPLETION.id },
        prompt_blueprint: {
          prompt_template: { type: 'chat', messages: expect.any(Array) },
          metadata: { model: { provider: 'openai', name: 'gpt-4o-2024-08-06' } },
        },
      });
      const messages = result.prompt_blueprint.prompt_template.messages;
      expect(messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] });

      const log = await detail(result.request_id);
      expect(log).toMatchObject({
        provider: 'openai',
        function_name: 'openai.chat.completions.create',
        prompt_id: template.id,
        prompt_name: name,
        prompt_version_number: 1,
        prompt_input_variables: { question: 'Weather?' },
        group_id: group,
        tags: ['run-e2e'],
        metadata: { flow: 'run' },
        input_tokens: 120,
        output_tokens: 18,
        parameters: { model: 'gpt-4o', temperature: 0.2, stream: false },
        input: { type: 'chat', messages: [{ role: 'system' }, { role: 'user' }] },
        output: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] }] },
      });
      // Without tracing the SDK sends OpenTelemetry's invalid span id (all zeros): no span, so none is kept.
      expect(log.span_id).toBeNull();
      expect(log.extra).not.toHaveProperty('span_id');
    } finally {
      process.env.OPENAI_BASE_URL = saved.url;
      process.env.OPENAI_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.OPENAI_BASE_URL;
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
    }
  });
});

describe('POST /track-request: odd payloads', () => {
  it('keeps a known call whose blocks no blueprint allows as an unknown one, rather than refusing it', async () => {
    const kwargs = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x', annotations: 'not a list' }] }],
    };
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: runBody({
        function_name: 'openai.chat.completions.create',
        provider_type: 'openai',
        kwargs,
        request_response: {},
      }),
    });
    expect(answer.status).toBe(200);
    expect(await detail(answer.body.request_id)).toMatchObject({
      input: { type: 'chat', messages: [] },
      parameters: kwargs,
      extra: { request_response: {} },
    });
  });
});

describe('body-key authentication and refusals', () => {
  const routes: [string, Record<string, unknown>][] = [
    ['/library-track-metadata', { request_id: 1, metadata: { a: 'b' } }],
    ['/library-track-score', { request_id: 1, score: 5 }],
    ['/library-track-prompt', { request_id: 1, prompt_name: 'p', prompt_input_variables: {} }],
    ['/track-group', { request_id: 1, group_id: 1 }],
    ['/create-group', {}],
    ['/track-request', { provider_type: 'openai' }],
  ];

  it.each(routes)(
    '%s answers 401 "Missing API key" without a key in the body or header',
    async (path, body) => {
      const answer = await service.rejected('POST', path, { key: null, body });
      expect(answer).toMatchObject({
        status: 401,
        body: { success: false, message: 'Missing API key', error: 'unauthorized' },
      });
    },
  );

  it.each(routes)(
    '%s answers 401 "Invalid API key" for an unknown key, without echoing it',
    async (path, body) => {
      const answer = await service.rejected('POST', path, {
        key: null,
        body: { ...body, api_key: 'pl_made_up_key' },
      });
      expect(answer).toMatchObject({
        status: 401,
        body: { message: 'Invalid API key', error: 'unauthorized' },
      });
      expect(JSON.stringify(answer.body)).not.toContain('pl_made_up_key');
    },
  );

  it('refuses a revoked key, and accepts the key from the X-API-KEY header when the body has none', async () => {
    const { createApiKey, revokeApiKey } = await import('#shared/auth/api-keys.ts');
    const created = await createApiKey(service.workspaceId);
    await revokeApiKey(service.workspaceId, created.summary.keyId);
    const revoked = await service.rejected('POST', '/create-group', {
      key: null,
      body: { api_key: created.key },
    });
    expect(revoked).toMatchObject({ status: 401, body: { message: 'Invalid API key' } });

    const byHeader = await service.call('POST', '/create-group', { body: {} });
    expect(byHeader).toMatchObject({ status: 200, body: { success: true, id: expect.any(Number) } });
  });

  it('refuses a read-only key with 403', async () => {
    const key = await service.keyWithPermissions({ request_logs: 'read' });
    const answer = await service.rejected('POST', '/create-group', { key: null, body: { api_key: key } });
    expect(answer).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });

  it.each([
    ['a score out of range', '/library-track-score', { request_id: 1, score: 101 }, 422],
    ['metadata with a number value', '/library-track-metadata', { request_id: 1, metadata: { a: 1 } }, 422],
    ['a group id that is not a number', '/track-group', { request_id: 1, group_id: 'g' }, 422],
    [
      'version and label at once',
      '/library-track-prompt',
      { request_id: 1, prompt_name: 'p', version: 1, label: 'prod' },
      422,
    ],
    ['no provider_type', '/track-request', { kwargs: {}, request_response: {} }, 422],
    [
      'no request times',
      '/track-request',
      { provider_type: 'openai', kwargs: {}, request_response: {} },
      422,
    ],
    [
      'an error_type with status SUCCESS',
      '/track-request',
      {
        provider_type: 'openai',
        request_response: {},
        request_start_time: 1,
        request_end_time: 2,
        error_type: 'PROVIDER_ERROR',
      },
      422,
    ],
    [
      'an unknown group',
      '/track-request',
      {
        provider_type: 'openai',
        request_response: {},
        request_start_time: 1,
        request_end_time: 2,
        group_id: 999_999_999,
      },
      404,
    ],
  ])('answers %s with a 4xx and stores nothing', async (_what, path, body, status) => {
    const answer = await service.rejected('POST', path, {
      key: null,
      body: { ...body, api_key: service.apiKey },
    });
    expect(answer.status).toBe(status);
  });

  it('answers a body that is not JSON with 400 and stores nothing', async () => {
    const answer = await service.rejected('POST', '/track-request', { key: null, rawBody: '{"api_key": ' });
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_json' } });
  });
});
