import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { chat, publish, uniqueName } from '#test/support/prompts.ts';
import { compareColumn, createReport } from '#test/support/reports.ts';

/**
 * Replays through the local gateway, against the loopback stub provider (the deployment's keys and base
 * URLs point at it, as in the workflow node tests): what the provider receives, the new log and its link
 * to the original, the 202 path, errors, bounds, permissions and isolation.
 */
const ENV_NAMES = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'REPLAY_SYNC_LIMIT_MS',
] as const;

let service: TestService;
let stub: LlmStub;
let readOnlyKey: string;
let otherKey: string;

function setDeploymentEnv() {
  process.env.OPENAI_API_KEY = 'sk-replay-openai-0001';
  process.env.OPENAI_BASE_URL = stub.openaiBaseUrl;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-replay-0002';
  process.env.ANTHROPIC_BASE_URL = stub.anthropicBaseUrl;
  delete process.env.REPLAY_SYNC_LIMIT_MS;
}

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
  setDeploymentEnv();
  readOnlyKey = await service.keyWithPermissions({ request_logs: 'read' });
  otherKey = await service.otherWorkspaceKey('replay-e2e-other');
});
afterEach(() => {
  setDeploymentEnv();
  stub.requests.length = 0;
});
afterAll(async () => {
  for (const name of ENV_NAMES) delete process.env[name];
  await Promise.all([service?.stop(), stub?.close()]);
});

const OPENAI_KWARGS = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: 'Say hello' },
  ],
  temperature: 0.3,
  max_tokens: 50,
};

/** A /track-request log as the SDK's OpenAI wrapper sends it; `kwargs` and other fields may be replaced. */
async function trackedOpenAI(overrides: Record<string, unknown> = {}): Promise<number> {
  const now = Date.now();
  const answer = await service.call('POST', '/track-request', {
    key: null,
    body: {
      api_key: service.apiKey,
      function_name: 'openai.chat.completions.create',
      provider_type: 'openai',
      kwargs: OPENAI_KWARGS,
      request_response: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-4o-2024-08-06',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 2 },
      },
      request_start_time: new Date(now - 900).toISOString(),
      request_end_time: new Date(now).toISOString(),
      tags: ['prod'],
      metadata: { user: 'u1' },
      ...overrides,
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.request_id;
}

async function logged(overrides: Record<string, unknown> = {}): Promise<number> {
  const created = await service.call('POST', '/log-request', { body: logRequestBody(overrides) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

const detail = async (id: number, key?: string) =>
  (await service.call('GET', `/api/public/v2/requests/${id}`, { key })).body;

const replay = (id: number, body?: unknown, key?: string) =>
  service.call('POST', `/api/public/v2/requests/${id}/replay`, { body, key });

/** The one request the stub received. */
function sentOnce() {
  expect(stub.requests).toHaveLength(1);
  return stub.requests[0]!;
}

describe('POST /api/public/v2/requests/{id}/replay', () => {
  it('sends an OpenAI /track-request log again as it was sent and logs the answer as a new linked log', async () => {
    const id = await trackedOpenAI();
    const before = await detail(id);

    const answer = await replay(id);

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // The provider receives the logged JSON itself (a replay never streams).
    expect(sentOnce()).toMatchObject({ path: '/v1/chat/completions', apiKey: 'sk-replay-openai-0001' });
    expect(stub.requests[0]!.body).toEqual({ ...OPENAI_KWARGS, stream: false });
    const { replay: log } = answer.body;
    expect(log).toMatchObject({
      replay_of: id,
      status: 'SUCCESS',
      provider: 'openai',
      model: 'gpt-4o',
      output: {
        type: 'chat',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Say hello' }] }],
      },
      input_tokens: 2,
      output_tokens: 2,
      error_type: null,
    });
    expect(log.request_id).not.toBe(id);
    expect(log.latency_ms).toBeGreaterThanOrEqual(0);
    // The new log: shown with its link, the original's tags and metadata; the original unchanged.
    expect(await detail(log.request_id)).toMatchObject({
      replay_of: id,
      tags: ['prod'],
      metadata: { user: 'u1' },
      function_name: 'openai.chat.completions.create',
    });
    expect(await detail(id)).toEqual(before);
    // Found by the search filter on replay_of.
    const found = await service.call('POST', '/api/public/v2/requests/search', {
      body: { filter_group: { filters: [{ field: 'replay_of', operator: 'eq', value: id }] } },
    });
    expect(found.body.items.map((item: { id: number }) => item.id)).toEqual([log.request_id]);
  });

  it('sends an Anthropic /track-request log again as it was sent', async () => {
    const kwargs = {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
    };
    const id = await trackedOpenAI({
      function_name: 'anthropic.messages.create',
      provider_type: 'anthropic',
      kwargs,
      request_response: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Sunny.' }],
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    });

    const answer = await replay(id);

    expect(answer.status).toBe(200);
    expect(sentOnce()).toMatchObject({ path: '/v1/messages', apiKey: 'sk-ant-replay-0002' });
    expect(stub.requests[0]!.body).toEqual({ ...kwargs, stream: false });
    expect(answer.body.replay).toMatchObject({
      status: 'SUCCESS',
      provider: 'anthropic',
      output: { messages: [{ content: [{ type: 'text', text: 'Weather in Paris?' }] }] },
    });
  });

  it('rebuilds the request of a /log-request log from its blueprint, model and parameters', async () => {
    const id = await logged({ parameters: { temperature: 0.5 } });

    const answer = await replay(id);

    expect(answer.status).toBe(200);
    expect(sentOnce().body).toEqual({
      model: 'gpt-4o',
      temperature: 0.5,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello!' }] }],
      stream: false,
    });
    expect(answer.body.replay.output.messages[0].content).toEqual([{ type: 'text', text: 'Hello!' }]);
  });

  it('sends another model, merged parameters and edited messages when asked', async () => {
    const id = await trackedOpenAI();

    const answer = await replay(id, {
      model: 'gpt-4o-mini',
      parameters: { temperature: 0 },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say goodbye' }] }],
      tags: ['replayed'],
    });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { body } = sentOnce();
    expect(body).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0,
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say goodbye' }] }],
    });
    expect(answer.body.replay).toMatchObject({ model: 'gpt-4o-mini' });
    expect(answer.body.replay.output.messages[0].content[0].text).toBe('Say goodbye');
    expect((await detail(answer.body.replay.request_id)).tags).toEqual(['replayed']);
  });

  it('renders a prompt version override with the original input variables', async () => {
    const name = uniqueName('replay-prompt');
    await publish(service, name, chat('You are exact.', 'Question: {question}'));
    const id = await trackedOpenAI({ prompt_input_variables: { question: 'why is the sky blue?' } });

    const answer = await replay(id, { prompt: { name, version: 1 } });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(sentOnce().body.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are exact.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Question: why is the sky blue?' }] },
    ]);
    expect(await detail(answer.body.replay.request_id)).toMatchObject({
      prompt_name: name,
      prompt_version_number: 1,
      prompt_input_variables: { question: 'why is the sky blue?' },
    });
  });

  it.each([
    [429, 'PROVIDER_RATE_LIMIT'],
    [500, 'PROVIDER_ERROR'],
  ])('records a provider %i as an ERROR log typed %s', async (status, type) => {
    const id = await trackedOpenAI({
      kwargs: { ...OPENAI_KWARGS, messages: [{ role: 'user', content: `[[stub:status=${status}]]` }] },
    });

    const answer = await replay(id);

    expect(answer.status).toBe(200);
    expect(answer.body.replay).toMatchObject({ status: 'ERROR', error_type: type });
    expect(answer.body.replay.error_message).toContain(`openai answered ${status}`);
    expect(await detail(answer.body.replay.request_id)).toMatchObject({ status: 'ERROR', error_type: type });
  });

  it('fails with PROVIDER_AUTH_ERROR when neither the workspace nor the deployment has a key', async () => {
    delete process.env.OPENAI_API_KEY;
    const id = await trackedOpenAI();

    const answer = await replay(id);

    expect(answer.body.replay).toMatchObject({ status: 'ERROR', error_type: 'PROVIDER_AUTH_ERROR' });
    expect(stub.requests).toHaveLength(0);
  });

  it('answers 202 with a RUNNING log when the provider is slower than the sync limit, and a job finishes it', async () => {
    // The call's window is the limit less the port's one-second margin: 150 ms.
    process.env.REPLAY_SYNC_LIMIT_MS = '1150';
    const id = await trackedOpenAI({
      kwargs: { ...OPENAI_KWARGS, messages: [{ role: 'user', content: 'late [[stub:slow=1000]]' }] },
    });

    const answer = await replay(id);

    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const newId = answer.body.replay.request_id;
    expect(answer.body.replay).toMatchObject({ status: 'RUNNING', replay_of: id });
    expect((await detail(newId)).status).toBe('RUNNING');
    await service.messaging.idle();
    expect(await detail(newId)).toMatchObject({
      status: 'SUCCESS',
      replay_of: id,
      output: { messages: [{ content: [{ type: 'text', text: 'late [[stub:slow=1000]]' }] }] },
    });
    // The abandoned call and the job's.
    expect(stub.requests).toHaveLength(2);
    // The rollups count it once, as it ended: its RUNNING image replaced by its SUCCESS one.
    await service.changes.idle();
    const charted = await service.call('POST', '/api/public/v2/requests/analytics', {
      body: {
        filter_group: {
          filters: [
            {
              field: 'request_start_time',
              operator: 'after',
              value: new Date(Date.now() - 3_600_000).toISOString(),
            },
            { field: 'status', operator: 'is', value: 'RUNNING' },
          ],
        },
      },
    });
    expect(charted.body).toMatchObject({ source: 'rollups', totalRequests: 0 });
  });

  it('needs request_logs edit, and finds no log of another workspace', async () => {
    const id = await trackedOpenAI();
    const readOnly = await service.rejected('POST', `/api/public/v2/requests/${id}/replay`, {
      key: readOnlyKey,
    });
    expect(readOnly.status).toBe(403);
    const foreign = await service.rejected('POST', `/api/public/v2/requests/${id}/replay`, { key: otherKey });
    expect(foreign).toMatchObject({ status: 404, body: { error: 'not_found' } });
    // A prompt override needs the prompts read permission: the rendered version lands in the new log.
    const logsOnly = await service.keyWithPermissions({ request_logs: 'edit' });
    const prompt = await service.rejected('POST', `/api/public/v2/requests/${id}/replay`, {
      key: logsOnly,
      body: { prompt: { name: 'any' } },
    });
    expect(prompt.status).toBe(403);
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    ['an unknown provider', { provider: 'cohere' }, ['body', 'provider']],
    ['parameters that are not an object', { parameters: 'hot' }, ['body', 'parameters']],
    [
      'a parameter of the wrong type',
      { parameters: { temperature: 'hot' } },
      ['body', 'parameters', 'temperature'],
    ],
    [
      'a conversation in the parameters',
      { parameters: { messages: [] } },
      ['body', 'parameters', 'messages'],
    ],
    [
      'max_tokens above the ceiling',
      { parameters: { max_tokens: 10_000_000 } },
      ['body', 'parameters', 'max_tokens'],
    ],
    [
      '10,000 messages',
      {
        messages: Array.from({ length: 10_000 }, () => ({
          role: 'user',
          content: [{ type: 'text', text: 'x' }],
        })),
      },
      ['body', 'messages'],
    ],
    [
      'two conversations',
      { messages: [{ role: 'user', content: [] }], prompt: { name: 'p' } },
      ['body', 'prompt'],
    ],
  ])('refuses %s with a 422 and writes nothing', async (_what, body, loc) => {
    const id = await trackedOpenAI();
    const answer = await service.rejected('POST', `/api/public/v2/requests/${id}/replay`, { body });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(loc);
    expect(stub.requests).toHaveLength(0);
  });

  it('refuses a log of a provider it cannot call, naming it', async () => {
    const id = await logged({ provider: 'google', model: 'gemini-2.5-pro' });
    const answer = await service.rejected('POST', `/api/public/v2/requests/${id}/replay`);
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('"google"');
  });
});

describe('GET /api/public/v2/requests/{id}/replays', () => {
  it('lists the replays newest first with whether the output changed and the deltas', async () => {
    // The original's output is what the stub's echo answers.
    const id = await logged({
      price: 0.5,
      output: {
        type: 'chat',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] }],
      },
    });
    const same = (await replay(id)).body.replay;
    const edited = (
      await replay(id, { messages: [{ role: 'user', content: [{ type: 'text', text: 'Bye' }] }] })
    ).body.replay;

    const answer = await service.call('GET', `/api/public/v2/requests/${id}/replays`);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, request_id: id, total: 2, page: 1 });
    expect(answer.body.items.map((item: { request_id: number }) => item.request_id)).toEqual([
      edited.request_id,
      same.request_id,
    ]);
    expect(answer.body.items[0].diff).toMatchObject({ output_changed: true, status_changed: false });
    expect(answer.body.items[1].diff).toMatchObject({ output_changed: false, cost_delta: same.price - 0.5 });
    // The original's latency is 5 s: the replay against the stub is faster.
    expect(answer.body.items[1].diff.latency_delta_ms).toBeLessThan(0);
    // Another workspace does not see the log.
    const foreign = await service.call('GET', `/api/public/v2/requests/${id}/replays`, { key: otherKey });
    expect(foreign.status).toBe(404);
  });
});

describe('POST /api/public/v2/requests/replay-batch', () => {
  it('replays 20 logs on the job queue and makes a dataset version of old and new outputs', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(
        await trackedOpenAI({
          kwargs: { ...OPENAI_KWARGS, messages: [{ role: 'user', content: `question ${i}` }] },
        }),
      );
    }
    const started = await service.call('POST', '/api/public/v2/requests/replay-batch', {
      body: { request_log_ids: ids, model: 'gpt-4o-mini', dataset_name: uniqueName('replay-batch') },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ status: 'QUEUED', total: null, dataset_id: null });

    await service.messaging.idle();
    const done = await service.call('GET', `/api/public/v2/requests/replay-batch/${started.body.batch_id}`);
    expect(done.body).toMatchObject({ status: 'COMPLETE', total: 20, replayed: 20, failed: 0 });
    const foreign = await service.call(
      'GET',
      `/api/public/v2/requests/replay-batch/${started.body.batch_id}`,
      {
        key: otherKey,
      },
    );
    expect(foreign.status).toBe(404);
    expect(stub.requests).toHaveLength(20);
    expect(stub.requests.every((request) => request.body.model === 'gpt-4o-mini')).toBe(true);

    const rows = await service.call('GET', `/api/public/v2/datasets/${done.body.dataset_id}/rows`, {
      query: { per_page: 100 },
    });
    expect(rows.status, JSON.stringify(rows.body).slice(0, 300)).toBe(200);
    expect(rows.body.total).toBe(20);
    expect(rows.body.columns).toEqual(
      expect.arrayContaining([
        'request_id',
        'original_output',
        'replayed_output',
        'original_cost',
        'replayed_latency_ms',
      ]),
    );
    const column = (name: string) => rows.body.columns.indexOf(name);
    const byRequest = new Map(
      rows.body.rows.map((row: { value: unknown }[]) => [row[column('request_id')]!.value, row]),
    );
    const first = byRequest.get(ids[0]) as { value: unknown }[];
    expect(first[column('original_output')]!.value).toBe('Hello.');
    expect(first[column('replayed_output')]!.value).toBe('question 0');
    // Each replay is a log linked to its original.
    const replays = await service.call('GET', `/api/public/v2/requests/${ids[0]}/replays`);
    expect(replays.body.items).toHaveLength(1);

    // A report over the version scores old against new: no replayed output equals the original's.
    const report = await createReport(service, {
      dataset_group_id: done.body.dataset_group_id,
      name: uniqueName('old vs new'),
      columns: [{ ...compareColumn('same', ['original_output', 'replayed_output']), is_part_of_score: true }],
    });
    const run = await service.call('POST', `/reports/${report.report_id}/run`, { body: {} });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    await service.messaging.idle();
    const scored = await service.call('GET', `/reports/${report.report_id}/score`);
    expect(scored.body.score, JSON.stringify(scored.body)).toMatchObject({ overall_score: 0 });
  });

  it('refuses more than 1,000 ids, and a body with neither ids nor a filter, writing nothing', async () => {
    const tooMany = await service.rejected('POST', '/api/public/v2/requests/replay-batch', {
      body: { request_log_ids: Array.from({ length: 1001 }, (_, i) => i + 1) },
    });
    expect(tooMany.status).toBe(422);
    const neither = await service.rejected('POST', '/api/public/v2/requests/replay-batch', { body: {} });
    expect(neither.status).toBe(422);
    const readOnly = await service.rejected('POST', '/api/public/v2/requests/replay-batch', {
      body: { request_log_ids: [1] },
      key: readOnlyKey,
    });
    expect(readOnly.status).toBe(403);
  });
});
