import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_TABLE_SOURCE } from '#shared/costs/price-table.ts';
import { READ_ONLY } from '#shared/platform/auth-context.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Cost and usage through the local gateway: logs of known usage priced by the price table (tiers, cache
 * reads), the client's price winning, an unknown model, the usage checks, workspace price overrides
 * (permissions, isolation) and a recompute that applies an override to logs already stored.
 */
const PRICES = '/api/public/v2/model-prices';
const RECOMPUTE = '/api/public/v2/requests/cost-recompute';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const jobsDone = () => service.messaging.idle();

/** Logs a request (a day of 2026 at `minute`), answering its id. */
async function log(overrides: Record<string, unknown>, minute = 0): Promise<number> {
  const start = Date.parse('2026-03-02T10:00:00Z') + minute * 60_000;
  const answer = await service.call('POST', '/log-request', {
    body: logRequestBody({
      request_start_time: new Date(start).toISOString(),
      request_end_time: new Date(start + 1500).toISOString(),
      ...overrides,
    }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id;
}

const detail = async (id: number) => (await service.call('GET', `/api/public/v2/requests/${id}`)).body;

/** The search item of a log (found by its id). */
async function searchItem(id: number) {
  const answer = await service.call('POST', '/api/public/v2/requests/search', {
    body: { filter_group: { filters: [{ field: 'pl_id', operator: 'eq', value: id }] } },
  });
  expect(answer.status).toBe(200);
  return answer.body.items[0];
}

const table = (model: string) => ({ source: PRICE_TABLE_SOURCE, priced_as: model });

describe('costs computed when the client sends none', () => {
  it('gpt-4o: 1M in + 1M out is $12.50; with 500k of the input cached, $11.875, in detail and search', async () => {
    const plain = await log({ input_tokens: 1_000_000, output_tokens: 1_000_000 });
    const cached = await log({
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
      usage: { cache_read_tokens: 500_000 },
    });
    expect((await detail(plain)).cost).toEqual({
      total: 12.5,
      input: 2.5,
      cached_input: 0,
      cache_write: 0,
      output: 10,
      reasoning: 0,
      ...table('gpt-4o'),
    });
    const cachedDetail = await detail(cached);
    expect(cachedDetail).toMatchObject({
      price: 11.875,
      usage: {
        input_tokens: 1_000_000,
        output_tokens: 1_000_000,
        cache_read_tokens: 500_000,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
      cost: { total: 11.875, input: 1.25, cached_input: 0.625, output: 10, ...table('gpt-4o') },
    });
    const item = await searchItem(cached);
    expect(item.price).toBe(11.875);
    expect(item.cost).toEqual(cachedDetail.cost);
    expect(item.usage).toEqual(cachedDetail.usage);
  });

  it('gpt-4o-mini with reasoning: the reasoning is its own part at the output price', async () => {
    const id = await log({
      model: 'gpt-4o-mini',
      input_tokens: 200_000,
      output_tokens: 100_000,
      usage: { cache_read_tokens: 100_000, reasoning_tokens: 40_000 },
    });
    // 100k x $0.15 + 100k cached x $0.075 + 60k x $0.60 + 40k reasoning x $0.60 (per million).
    expect((await detail(id)).cost).toEqual({
      total: 0.0825,
      input: 0.015,
      cached_input: 0.0075,
      cache_write: 0,
      output: 0.036,
      reasoning: 0.024,
      ...table('gpt-4o-mini'),
    });
  });

  it("claude-sonnet-4-5 tracked with cache reads over 200k input tokens: Anthropic's count made whole, the upper tier", async () => {
    const now = Date.now();
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: {
        api_key: service.apiKey,
        function_name: 'anthropic.messages.create',
        provider_type: 'anthropic',
        kwargs: { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] },
        request_response: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'Hello' }],
          usage: {
            input_tokens: 140_000,
            cache_read_input_tokens: 100_000,
            cache_creation_input_tokens: 10_000,
            output_tokens: 1000,
          },
        },
        request_start_time: new Date(now - 2000).toISOString(),
        request_end_time: new Date(now).toISOString(),
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const logged = await detail(answer.body.request_id);
    expect(logged).toMatchObject({
      input_tokens: 250_000,
      usage: { input_tokens: 250_000, cache_read_tokens: 100_000, cache_write_tokens: 10_000 },
      price: 0.9975,
    });
    // 140k x $6 + 100k read x $0.60 + 10k written x $7.50 + 1k out x $22.50 (the >200k rates).
    expect(logged.cost).toEqual({
      total: 0.9975,
      input: 0.84,
      cached_input: 0.06,
      cache_write: 0.075,
      output: 0.0225,
      reasoning: 0,
      ...table('claude-sonnet-4-5'),
    });
  });

  it('claude-sonnet-4-5 tracked with cache writes kept an hour: those at the 1-hour price, in detail and search', async () => {
    const now = Date.now();
    const answer = await service.call('POST', '/track-request', {
      key: null,
      body: {
        api_key: service.apiKey,
        function_name: 'anthropic.messages.create',
        provider_type: 'anthropic',
        kwargs: { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] },
        request_response: {
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'Hello' }],
          usage: {
            input_tokens: 0,
            cache_creation_input_tokens: 100_000,
            cache_creation: { ephemeral_5m_input_tokens: 60_000, ephemeral_1h_input_tokens: 40_000 },
            output_tokens: 0,
          },
        },
        request_start_time: new Date(now - 2000).toISOString(),
        request_end_time: new Date(now).toISOString(),
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const logged = await detail(answer.body.request_id);
    expect(logged.usage).toMatchObject({ cache_write_tokens: 100_000, cache_write_1h_tokens: 40_000 });
    // 60k x $3.75 + 40k x $6 (a one-hour write costs 2x the input price).
    expect(logged.cost).toMatchObject({ total: 0.465, cache_write: 0.465 });
    expect((await searchItem(answer.body.request_id)).cost).toEqual(logged.cost);
  });

  it('a model the table does not know costs 0 and says so', async () => {
    const id = await log({ model: 'acme-llm-7b', provider: 'acme', input_tokens: 1000, output_tokens: 1000 });
    expect(await detail(id)).toMatchObject({
      price: 0,
      cost: { total: 0, source: 'unknown_model', priced_as: null },
    });
  });

  it("the client's price wins", async () => {
    const id = await log({ input_tokens: 1_000_000, output_tokens: 1_000_000, price: 0.5 });
    expect(await detail(id)).toMatchObject({ price: 0.5, cost: { total: 0.5, source: 'client', input: 0 } });
  });

  it('the cost filter sees computed costs', async () => {
    const answer = await service.call('POST', '/api/public/v2/requests/search', {
      body: {
        filter_group: {
          filters: [
            { field: 'cost', operator: 'between', value: [11, 13] },
            { field: 'engine', operator: 'is', value: 'gpt-4o' },
          ],
        },
      },
    });
    expect(answer.body.items.map((item: { price: number }) => item.price).sort()).toEqual([11.875, 12.5]);
  });
});

describe('every way of logging prices alike', () => {
  it('a log_request of /spans-bulk is priced as POST /log-request prices it', async () => {
    const answer = await service.call('POST', '/spans-bulk', {
      body: {
        spans: [
          {
            name: 'llm',
            context: { trace_id: 'c'.repeat(32), span_id: 'd'.repeat(16) },
            kind: 'SpanKind.CLIENT',
            parent_id: null,
            start_time: 1_772_445_600_000_000_000,
            end_time: 1_772_445_601_000_000_000,
            status: { status_code: 'StatusCode.OK' },
            attributes: {},
            log_request: logRequestBody({
              input_tokens: 1_000_000,
              output_tokens: 1_000_000,
              usage: { cache_read_tokens: 500_000 },
            }),
          },
        ],
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const logged = await detail(answer.body.request_logs[0].id);
    expect(logged).toMatchObject({ price: 11.875, cost: { total: 11.875, ...table('gpt-4o') } });
  });
});

describe('usage that contradicts its totals', () => {
  it('cache reads over the input tokens: 422 naming the field, nothing written', async () => {
    const answer = await service.rejected('POST', '/log-request', {
      body: logRequestBody({ input_tokens: 100, usage: { cache_read_tokens: 101 } }),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'usage', 'cache_read_tokens']);
  });

  it('reasoning over the output tokens in a span of /spans-bulk: 422, nothing written', async () => {
    const answer = await service.rejected('POST', '/spans-bulk', {
      body: {
        spans: [
          {
            name: 'llm',
            context: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) },
            kind: 'SpanKind.CLIENT',
            parent_id: null,
            start_time: 1_772_445_600_000_000_000,
            end_time: 1_772_445_601_000_000_000,
            status: { status_code: 'StatusCode.OK' },
            attributes: {},
            log_request: logRequestBody({ output_tokens: 10, usage: { reasoning_tokens: 11 } }),
          },
        ],
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual([
      'body',
      'spans',
      0,
      'log_request',
      'usage',
      'reasoning_tokens',
    ]);
  });
});

describe('workspace price overrides', () => {
  const override = { usd_per_million_tokens: { input: 1, output: 2, cached_input: 0.1 } };

  it('a read-only key reads the prices but cannot change them', async () => {
    const put = await service.call('PUT', `${PRICES}/llama-3-70b-internal`, {
      body: { provider: 'self-hosted', usd_per_million_tokens: { input: 0.2, output: 0.4 } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.model_price).toEqual({
      model: 'llama-3-70b-internal',
      provider: 'self-hosted',
      usd_per_million_tokens: {
        input: 0.2,
        cached_input: 0.2,
        cache_write: 0.2,
        output: 0.4,
        reasoning: 0.4,
      },
      updated_at: expect.any(String),
    });
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    const list = await service.call('GET', PRICES, { key: readOnly });
    expect(list.status).toBe(200);
    expect(list.body.items).toContainEqual(put.body.model_price);
    const one = await service.call('GET', `${PRICES}/LLAMA-3-70B-internal`, { key: readOnly });
    expect(one.body.model_price).toEqual(put.body.model_price);
    expect((await service.rejected('PUT', `${PRICES}/x`, { key: readOnly, body: override })).status).toBe(
      403,
    );
    expect(
      (await service.rejected('DELETE', `${PRICES}/llama-3-70b-internal`, { key: readOnly })).status,
    ).toBe(403);
  });

  it('refuses bad prices with a 422 and unknown models with a 404', async () => {
    for (const body of [
      { usd_per_million_tokens: { input: -1, output: 1 } },
      { usd_per_million_tokens: { input: 1 } },
      { usd_per_million_tokens: { input: 1, output: 'free' } },
      { usd_per_million_tokens: { input: 1, output: 1, surprise: 1 } },
    ]) {
      expect((await service.rejected('PUT', `${PRICES}/gpt-4o`, { body })).status).toBe(422);
    }
    expect((await service.rejected('GET', `${PRICES}/never-priced`)).status).toBe(404);
    expect((await service.rejected('DELETE', `${PRICES}/never-priced`)).status).toBe(404);
  });

  it('another workspace sees none of them, and its logs keep the table price', async () => {
    const other = await service.otherWorkspaceKey('costs-other');
    expect((await service.call('GET', PRICES, { key: other })).body.items).toEqual([]);
    expect((await service.rejected('GET', `${PRICES}/llama-3-70b-internal`, { key: other })).status).toBe(
      404,
    );
  });

  it('a new log of an overridden model is priced by the override; a recompute applies it to older logs', async () => {
    const before = await log({ model: 'gpt-4o', input_tokens: 1_000_000, output_tokens: 1_000_000 }, 600);
    const clientPriced = await log({ model: 'gpt-4o', input_tokens: 1_000_000, price: 3 }, 601);
    await service.call('POST', '/rest/track-score', { body: { request_id: before, score: 80 } });
    expect((await detail(before)).cost.total).toBe(12.5);

    const put = await service.call('PUT', `${PRICES}/gpt-4o`, { body: override });
    expect(put.status).toBe(200);
    const after = await log({ model: 'gpt-4o', input_tokens: 1_000_000, output_tokens: 1_000_000 }, 602);
    expect((await detail(after)).cost).toMatchObject({
      total: 3,
      input: 1,
      output: 2,
      source: 'workspace_override',
      priced_as: 'gpt-4o',
    });

    const window = { start_time: '2026-03-02T20:00:00Z', end_time: '2026-03-02T21:00:00Z' };
    const started = await service.call('POST', RECOMPUTE, {
      body: { ...window, filter_group: { filters: [{ field: 'engine', operator: 'is', value: 'gpt-4o' }] } },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.job).toMatchObject({ status: 'running', matched: 0 });
    await jobsDone();

    const polled = await service.call('GET', `${RECOMPUTE}/${started.body.job.id}`);
    expect(polled.body.job).toMatchObject({
      status: 'done',
      matched: 3,
      rewritten: 1,
      unchanged: 1,
      client_priced: 1,
      finished_at: expect.any(String),
    });
    const rewritten = await detail(before);
    expect(rewritten).toMatchObject({
      price: 3,
      cost: { total: 3, source: 'workspace_override' },
      score: 80,
    });
    expect((await detail(clientPriced)).cost).toMatchObject({ total: 3, source: 'client' });

    // Idempotent: run again, nothing changes.
    const again = await service.call('POST', RECOMPUTE, { body: window });
    await jobsDone();
    const second = await service.call('GET', `${RECOMPUTE}/${again.body.job.id}`);
    expect(second.body.job).toMatchObject({ status: 'done', matched: 3, rewritten: 0, unchanged: 2 });

    // Without the override, a recompute goes back to the table.
    expect((await service.call('DELETE', `${PRICES}/gpt-4o`)).status).toBe(200);
    await service.call('POST', RECOMPUTE, { body: window });
    await jobsDone();
    expect((await detail(after)).cost).toMatchObject({ total: 12.5, ...table('gpt-4o') });
  });

  it('recompute: bad bodies are 422, a read-only key is 403, another workspace cannot poll the job', async () => {
    await service.rejected('POST', RECOMPUTE, { body: { start_time: '2026-03-02T00:00:00Z' } });
    await service.rejected('POST', RECOMPUTE, {
      body: { start_time: '2026-03-03T00:00:00Z', end_time: '2026-03-02T00:00:00Z' },
    });
    await service.rejected('POST', RECOMPUTE, {
      body: {
        start_time: '2026-03-02T00:00:00Z',
        end_time: '2026-03-03T00:00:00Z',
        filter_group: { filters: [{ field: 'cost', operator: 'contains', value: 'x' }] },
      },
    });
    const readOnly = await service.keyWithPermissions(READ_ONLY);
    const body = { start_time: '2026-03-02T00:00:00Z', end_time: '2026-03-03T00:00:00Z' };
    expect((await service.rejected('POST', RECOMPUTE, { key: readOnly, body })).status).toBe(403);

    const job = await service.call('POST', RECOMPUTE, { body });
    await jobsDone();
    const other = await service.otherWorkspaceKey('costs-other');
    expect((await service.rejected('GET', `${RECOMPUTE}/${job.body.job.id}`, { key: other })).status).toBe(
      404,
    );
    expect((await service.call('GET', `${RECOMPUTE}/${job.body.job.id}`, { key: readOnly })).status).toBe(
      200,
    );
  });

  it('one job at a time per workspace: 409 while another holds the lock, free again once its lease ran out', async () => {
    const client = new DynamoDBClient({ endpoint: service.dynamodbEndpoint });
    const lock = (leaseUntil: number) =>
      client.send(
        new PutItemCommand({
          TableName: service.tableName,
          Item: {
            PK: { S: `W#${service.workspaceId}#CRJ` },
            SK: { S: 'RUNNING' },
            jobId: { S: 'job-in-flight' },
            leaseUntil: { N: String(leaseUntil) },
          },
        }),
      );
    const body = { start_time: '2026-03-02T00:00:00Z', end_time: '2026-03-03T00:00:00Z' };
    await lock(Date.now() + 60_000);
    const refused = await service.rejected('POST', RECOMPUTE, { body });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('job-in-flight');
    // Another workspace is not held back.
    const other = await service.otherWorkspaceKey('costs-other');
    expect((await service.call('POST', RECOMPUTE, { key: other, body })).status).toBe(202);
    await jobsDone();

    await lock(Date.now() - 1);
    const started = await service.call('POST', RECOMPUTE, { body });
    expect(started.status).toBe(202);
    await jobsDone();
    expect((await service.call('GET', `${RECOMPUTE}/${started.body.job.id}`)).body.job.status).toBe('done');
  });
});
