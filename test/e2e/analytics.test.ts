import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * POST /api/public/v2/requests/analytics end to end: logs with known tokens and prices go through
 * log-request, the local change feed rolls them up, and the analytics answer equals the sums of what
 * was logged, in total, per hour and per breakdown; a later metadata update is reflected; a filter the
 * rollups cannot answer is answered from the logs (source: logs) with the same sums.
 */
let service: TestService;

const HOUR = 3_600_000;
// Three whole hours ending an hour ago: inside the 5-minute buckets' retention, charted by the hour.
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const START = END - 3 * HOUR;

interface Sent {
  model: string;
  provider: string;
  price: number;
  input: number;
  output: number;
  latencyMs: number;
  startMs: number;
  tags: string[];
  metadata: Record<string, string>;
  status: 'SUCCESS' | 'ERROR';
}

const sent: Sent[] = Array.from({ length: 24 }, (_, i) => ({
  model: ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5'][i % 3]!,
  provider: i % 3 === 2 ? 'anthropic' : 'openai',
  price: Number((0.0013 * (i + 1)).toFixed(6)),
  input: 100 + 7 * i,
  output: 20 + i,
  latencyMs: 200 + 50 * i,
  startMs: START + i * 7 * 60_000 + 1000,
  tags: i % 4 === 0 ? ['prod', 'batch'] : ['prod'],
  metadata: { user_id: `u${i % 5}` },
  status: i % 6 === 5 ? 'ERROR' : 'SUCCESS',
}));

const ids: number[] = [];
const sum = (logs: Sent[], pick: (s: Sent) => number) => logs.reduce((total, s) => total + pick(s), 0);
const window = {
  logic: 'AND',
  filters: [
    {
      field: 'request_start_time',
      operator: 'between',
      value: [new Date(START).toISOString(), new Date(END - 1).toISOString()],
    },
  ],
};
const analytics = (body: Record<string, unknown> = {}, key?: string) =>
  service.call('POST', '/api/public/v2/requests/analytics', { body: { filter_group: window, ...body }, key });

beforeAll(async () => {
  service = await startTestService();
  for (const s of sent) {
    const answer = await service.call('POST', '/log-request', {
      body: logRequestBody({
        model: s.model,
        provider: s.provider,
        price: s.price,
        input_tokens: s.input,
        output_tokens: s.output,
        tags: s.tags,
        metadata: s.metadata,
        status: s.status,
        ...(s.status === 'ERROR' ? { error_type: 'PROVIDER_TIMEOUT', error_message: 'timed out' } : {}),
        request_start_time: new Date(s.startMs).toISOString(),
        request_end_time: new Date(s.startMs + s.latencyMs).toISOString(),
      }),
    });
    expect(answer.status).toBe(201);
    ids.push(answer.body.id);
  }
  await service.changes.idle();
});
afterAll(() => service?.stop());

describe('POST /api/public/v2/requests/analytics', () => {
  it('answers from the rollups the totals, per-hour stats and breakdowns of what was logged', async () => {
    const { status, body } = await analytics();
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, source: 'rollups', incomplete_results: false });
    expect(body.chartInterval).toEqual({ interval: 'hour', bucketSizeMs: HOUR, bucketMinutes: 60 });
    expect(body.totalRequests).toBe(sent.length);
    expect(body.totalCost).toBeCloseTo(
      sum(sent, (s) => s.price),
      9,
    );
    expect(body.totalTokens).toBe(sum(sent, (s) => s.input + s.output));
    expect(body.averageLatency).toBeCloseTo(sum(sent, (s) => s.latencyMs) / sent.length / 1000, 9);

    expect(body.stats).toHaveLength(3);
    body.stats.forEach((bucket: any, h: number) => {
      const inHour = sent.filter((s) => s.startMs >= START + h * HOUR && s.startMs < START + (h + 1) * HOUR);
      expect(bucket.date).toBe(new Date(START + h * HOUR).toISOString());
      expect(bucket.requests).toBe(inHour.length);
      expect(bucket.cost).toBeCloseTo(
        sum(inHour, (s) => s.price),
        9,
      );
      expect(bucket.inputTokens).toBe(sum(inHour, (s) => s.input));
      const errors = inHour.filter((s) => s.status === 'ERROR').length;
      expect(bucket.statusCounts).toEqual({
        SUCCESS: inHour.length - errors,
        ...(errors ? { ERROR: errors } : {}),
      });
    });

    const byModel = Object.fromEntries(body.modelBreakdown.map((row: any) => [row.model, row]));
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5']) {
      const logs = sent.filter((s) => s.model === model);
      expect(byModel[model].requests).toBe(logs.length);
      expect(byModel[model].cost).toBeCloseTo(
        sum(logs, (s) => s.price),
        9,
      );
      expect(byModel[model].outputTokens).toBe(sum(logs, (s) => s.output));
    }
    expect(body.mostUsedModels.map(([, n]: [string, number]) => n)).toEqual([8, 8, 8]);
    const byProvider = Object.fromEntries(
      body.providerBreakdown.map((row: any) => [row.provider, row.requests]),
    );
    expect(byProvider).toEqual({ openai: 16, anthropic: 8 });
    const byTag = Object.fromEntries(body.tagsBreakdown.map((row: any) => [row.tag, row.requests]));
    expect(byTag).toEqual({ prod: 24, batch: 6 });
    expect(body.errorTypes).toEqual([{ errorType: 'PROVIDER_TIMEOUT', requests: 4 }]);
    expect(body.metadataKeysTop).toEqual([{ key: 'user_id', requests: 24 }]);
    // The exact p95 of the latencies, within the sketch's 1 %.
    const sorted = sent.map((s) => s.latencyMs).sort((a, b) => a - b);
    const p95 = sorted[Math.floor(0.95 * (sorted.length - 1))]! / 1000;
    expect(Math.abs(body.latencyPercentiles.p95 - p95) / p95).toBeLessThan(0.011);
  });

  it('breaks cost down by the values of metadata_cost_breakdown_key', async () => {
    const { body } = await analytics({ metadata_cost_breakdown_key: 'user_id' });
    const rows = body.metadataValueBreakdown;
    expect(rows.map((r: any) => r.value).sort()).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    for (const row of rows) {
      const logs = sent.filter((s) => s.metadata.user_id === row.value);
      expect(row).toMatchObject({ key: 'user_id', label: row.value, requests: logs.length });
      expect(row.cost).toBeCloseTo(
        sum(logs, (s) => s.price),
        9,
      );
    }
  });

  it('reflects a metadata update made after logging', async () => {
    await service.call('POST', '/rest/track-metadata', {
      body: { request_id: ids[0], metadata: { user_id: 'vip' } },
    });
    await service.changes.idle();
    const { body } = await analytics({ metadata_cost_breakdown_key: 'user_id' });
    const rows = Object.fromEntries(body.metadataValueBreakdown.map((r: any) => [r.value, r]));
    expect(rows.vip).toMatchObject({ requests: 1 });
    expect(rows.vip.cost).toBeCloseTo(sent[0]!.price, 9);
    expect(rows.u0.requests).toBe(sent.filter((s) => s.metadata.user_id === 'u0').length - 1);
    expect(body.totalRequests).toBe(sent.length);
    sent[0]!.metadata = { user_id: 'vip' };
  });

  it('counts a log once when its score changes (the update replaces its contribution)', async () => {
    const before = (await analytics()).body;
    await service.call('POST', '/rest/track-score', { body: { request_id: ids[1], score: 42 } });
    await service.changes.idle();
    const after = (await analytics()).body;
    expect(after.totalRequests).toBe(sent.length);
    expect(after.totalCost).toBe(before.totalCost);
    expect(after.stats).toEqual(before.stats);
  });

  it('answers one dimension condition from the rollups, and what they cannot answer from the logs', async () => {
    const model = (value: string) => ({ field: 'engine', operator: 'is', value });
    const one = await analytics({
      filter_group: { logic: 'AND', filters: [...window.filters, model('gpt-4o')] },
    });
    const gpt4o = sent.filter((s) => s.model === 'gpt-4o');
    expect(one.body).toMatchObject({
      source: 'rollups',
      totalRequests: gpt4o.length,
      breakdowns_partial: true,
    });
    expect(one.body.totalCost).toBeCloseTo(
      sum(gpt4o, (s) => s.price),
      9,
    );

    // Free text and two dimensions at once need the logs.
    const text = await analytics({ q: 'hello' });
    expect(text.body).toMatchObject({
      source: 'logs',
      incomplete_results: false,
      totalRequests: sent.length,
    });
    expect(text.body.totalCost).toBeCloseTo(
      sum(sent, (s) => s.price),
      9,
    );
    const both = await analytics({
      filter_group: {
        logic: 'AND',
        filters: [
          ...window.filters,
          model('gpt-4o'),
          { field: 'tags', operator: 'contains', value: 'batch' },
        ],
      },
    });
    const expected = gpt4o.filter((s) => s.tags.includes('batch'));
    expect(both.body).toMatchObject({
      source: 'logs',
      totalRequests: expected.length,
      breakdowns_partial: false,
    });
    expect(both.body.stats.map((b: any) => b.requests)).toEqual(
      [0, 1, 2].map(
        (h) =>
          expected.filter((s) => s.startMs >= START + h * HOUR && s.startMs < START + (h + 1) * HOUR).length,
      ),
    );
  });

  it('shows another workspace none of it, and lets a read-only key read', async () => {
    const other = await analytics({}, await service.otherWorkspaceKey('analytics-other'));
    expect(other.body).toMatchObject({ totalRequests: 0, totalCost: 0, modelBreakdown: [] });
    const readOnly = await analytics({}, await service.keyWithPermissions({ request_logs: 'read' }));
    expect(readOnly.status).toBe(200);
    expect(readOnly.body.totalRequests).toBe(sent.length);
    const none = await service.rejected('POST', '/api/public/v2/requests/analytics', {
      body: {},
      key: await service.keyWithPermissions({ prompts: 'read' }),
    });
    expect(none.status).toBe(403);
  });

  it('refuses a bad filter with a 422', async () => {
    const bad = await service.rejected('POST', '/api/public/v2/requests/analytics', {
      body: { filter_group: { logic: 'AND', filters: [{ field: 'nope', operator: 'is', value: 1 }] } },
    });
    expect(bad.status).toBe(422);
  });
});

describe('POST /api/public/v2/requests/analytics/custom-analytics', () => {
  const custom = (charts: unknown[], extra: Record<string, unknown> = {}) =>
    service.call('POST', '/api/public/v2/requests/analytics/custom-analytics', {
      body: { filter_group: window, customCharts: charts, ...extra },
    });

  it('computes counts, sums, averages and percentiles, overall, per group and over time', async () => {
    const { status, body } = await custom([
      { id: 'count', chartType: 'bar', metric: 'count' },
      { id: 'cost-by-model', chartType: 'bar', metric: 'sum', metricField: 'cost', groupByField: 'engine' },
      {
        id: 'p95',
        chartType: 'line',
        metric: 'percentile',
        metricField: 'latency_ms',
        percentile: 95,
        timeSeries: true,
      },
      {
        id: 'cost-by-user',
        chartType: 'bar',
        metric: 'avg',
        metricField: 'input_tokens',
        groupByMetadataKey: 'user_id',
        limit: 2,
      },
      {
        id: 'tokens',
        chartType: 'bar',
        series: [
          { key: 'in', label: 'Input', metric: 'sum', metricField: 'input_tokens' },
          { key: 'out', label: 'Output', metric: 'sum', metricField: 'output_tokens' },
        ],
        derivedInsights: [{ label: 'out per in', numeratorSeriesKey: 'out', denominatorSeriesKey: 'in' }],
      },
    ]);
    expect(status).toBe(200);
    expect(body.source).toBe('rollups');
    const [count, byModel, p95, byUser, tokens] = body.customCharts;
    expect(count.data).toEqual([{ label: 'All', value: sent.length }]);
    for (const row of byModel.data) {
      expect(row.value).toBeCloseTo(
        sum(
          sent.filter((s) => s.model === row.label),
          (s) => s.price,
        ),
        9,
      );
    }
    expect(p95.data).toHaveLength(3);
    expect(p95.data[0].bucketKey).toBe(new Date(START).toISOString());
    expect(byUser.data).toHaveLength(2);
    const [input, output] = [sum(sent, (s) => s.input), sum(sent, (s) => s.output)];
    expect(tokens.data).toEqual([{ label: 'All', in: input, out: output }]);
    expect(tokens.derivedInsights[0].value).toBeCloseTo(output / input, 9);
  });

  it('answers from the logs when the filter needs them, and refuses a field the rollups do not hold', async () => {
    const { body } = await custom([{ id: 'n', chartType: 'bar', metric: 'count' }], { q: 'Hello' });
    expect(body).toMatchObject({
      source: 'logs',
      customCharts: [{ data: [{ label: 'All', value: sent.length }] }],
    });
    const bad = await service.rejected('POST', '/api/public/v2/requests/analytics/custom-analytics', {
      body: { customCharts: [{ id: 'x', chartType: 'bar', metric: 'sum', metricField: 'turn_count' }] },
    });
    expect(bad.status).toBe(422);
  });
});

describe('GET /api/public/v2/requests/suggestions', () => {
  const suggest = (query: Record<string, string>, key?: string) =>
    service.call('GET', '/api/public/v2/requests/suggestions', { query, key });

  it('lists the values seen for a field, most used first, filtered by prefix', async () => {
    expect((await suggest({ field: 'engine' })).body).toEqual({
      success: true,
      values: expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5']),
      source: 'rollups',
    });
    expect((await suggest({ field: 'tags' })).body.values).toEqual(['prod', 'batch']);
    expect((await suggest({ field: 'metadata_keys' })).body.values).toEqual(['user_id']);
    expect(
      (await suggest({ field: 'metadata_values', metadata_key: 'user_id', prefix: 'V' })).body.values,
    ).toEqual(['vip']);
    const other = await suggest({ field: 'engine' }, await service.otherWorkspaceKey('analytics-other'));
    expect(other.body.values).toEqual([]);
    expect(
      (
        await service.rejected('GET', '/api/public/v2/requests/suggestions', {
          query: { field: 'metadata_values' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await service.rejected('GET', '/api/public/v2/requests/suggestions', {
          query: { field: 'tool_names' },
        })
      ).status,
    ).toBe(422);
  });
});

describe('a log kept in S3', () => {
  it('is rolled up from the head its item keeps, before and after an update', async () => {
    const key = await service.otherWorkspaceKey('analytics-large');
    const big = 'x'.repeat(400_000);
    const logged = await service.call('POST', '/log-request', {
      key,
      body: logRequestBody({
        price: 0.5,
        metadata: { team: 'a' },
        input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: big }] }] },
        request_start_time: new Date(START + 60_000).toISOString(),
        request_end_time: new Date(START + 61_000).toISOString(),
      }),
    });
    expect(logged.status).toBe(201);
    await service.call('POST', '/rest/track-metadata', {
      key,
      body: { request_id: logged.body.id, metadata: { team: 'b' } },
    });
    await service.changes.idle();
    const { body } = await analytics({ metadata_cost_breakdown_key: 'team' }, key);
    expect(body).toMatchObject({ totalRequests: 1, totalCost: 0.5 });
    expect(body.metadataValueBreakdown.map((row: any) => [row.value, row.requests])).toEqual([['b', 1]]);
  });
});

describe('a dimension condition the rollups cannot answer exactly', () => {
  it('is answered from the logs when its value went to (other), past the keys kept, or was cut to 200 characters', async () => {
    const key = await service.otherWorkspaceKey('analytics-overflow');
    // One more user than an hour's item keeps apart (200 values per dimension): the last counts under (other).
    const users = Array.from({ length: 201 }, (_, i) => `user-${String(i).padStart(3, '0')}`);
    const long = `team-${'x'.repeat(250)}`;
    const at = START + 10 * 60_000;
    const body = (metadata: Record<string, string>) =>
      logRequestBody({
        price: 0.01,
        metadata,
        request_start_time: new Date(at).toISOString(),
        request_end_time: new Date(at + 1000).toISOString(),
      });
    for (const user of users) {
      expect(
        (await service.call('POST', '/log-request', { key, body: body({ user_id: user }) })).status,
      ).toBe(201);
    }
    expect((await service.call('POST', '/log-request', { key, body: body({ team: long }) })).status).toBe(
      201,
    );
    // 60 metadata keys in the hour, 20 a log: the item keeps 50 of them as dimensions.
    for (let log = 0; log < 3; log++) {
      const metadata = Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`k${String(log * 20 + i).padStart(2, '0')}`, 'v']),
      );
      expect((await service.call('POST', '/log-request', { key, body: body(metadata) })).status).toBe(201);
    }
    await service.changes.idle();
    const only = (nested_key: string, value: string) =>
      analytics(
        {
          filter_group: {
            logic: 'AND',
            filters: [...window.filters, { field: 'metadata', operator: 'key_equals', nested_key, value }],
          },
        },
        key,
      );

    expect((await only('user_id', 'user-000')).body).toMatchObject({ source: 'rollups', totalRequests: 1 });
    const folded = (await only('user_id', 'user-200')).body;
    expect(folded).toMatchObject({ source: 'logs', totalRequests: 1 });
    expect(folded.totalCost).toBeCloseTo(0.01, 9);
    expect((await only('team', long)).body).toMatchObject({ source: 'logs', totalRequests: 1 });
    expect((await only('k00', 'v')).body).toMatchObject({ source: 'rollups', totalRequests: 1 });
    expect((await only('k55', 'v')).body).toMatchObject({ source: 'logs', totalRequests: 1 });
  });
});

describe('logs priced by the service', () => {
  it('add up to what each log cost, with their cached and reasoning tokens, and follow a cost recompute', async () => {
    const key = await service.otherWorkspaceKey('analytics-priced');
    const logs = [
      {
        model: 'gpt-4o',
        provider: 'openai',
        input: 1_000_000,
        output: 1_000_000,
        cached: 500_000,
        writes: 0,
        reasoning: 0,
      },
      {
        model: 'gpt-4o-mini',
        provider: 'openai',
        input: 20_000,
        output: 3_000,
        cached: 0,
        writes: 0,
        reasoning: 1_000,
      },
      {
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        input: 250_000,
        output: 1_000,
        cached: 100_000,
        writes: 10_000,
        reasoning: 0,
      },
      {
        model: 'no-such-model-x',
        provider: 'openai',
        input: 500,
        output: 50,
        cached: 0,
        writes: 0,
        reasoning: 0,
      },
    ];
    const costs: Record<string, number> = {};
    for (const [i, log] of logs.entries()) {
      // Hour by hour, the unknown model in the last hour with Claude.
      const at = START + Math.min(i, 2) * HOUR + (i + 1) * 60_000;
      const logged = await service.call('POST', '/log-request', {
        key,
        body: logRequestBody({
          model: log.model,
          provider: log.provider,
          input_tokens: log.input,
          output_tokens: log.output,
          usage: {
            cache_read_tokens: log.cached,
            cache_write_tokens: log.writes,
            reasoning_tokens: log.reasoning,
          },
          request_start_time: new Date(at).toISOString(),
          request_end_time: new Date(at + 1000).toISOString(),
        }),
      });
      expect(logged.status, JSON.stringify(logged.body)).toBe(201);
      costs[log.model] = (
        await service.call('GET', `/api/public/v2/requests/${logged.body.id}`, { key })
      ).body.cost.total;
    }
    expect(costs).toMatchObject({ 'gpt-4o': 11.875, 'claude-sonnet-4-5': 0.9975, 'no-such-model-x': 0 });
    expect(costs['gpt-4o-mini']).toBeGreaterThan(0);
    await service.changes.idle();

    for (const q of [undefined, 'Hello']) {
      const { body } = await analytics(q ? { q } : {}, key);
      expect(body.source).toBe(q ? 'logs' : 'rollups');
      const total = Object.values(costs).reduce((a, b) => a + b, 0);
      expect(body.totalCost).toBeCloseTo(total, 9);
      expect(body.totalCachedTokens).toBe(600_000);
      expect(body.totalCacheWriteTokens).toBe(10_000);
      expect(body.totalThinkingTokens).toBe(1_000);
      const input = logs.reduce((sum, log) => sum + log.input, 0);
      expect(body.totalInputTokens).toBe(input);
      expect(body.cacheTokenRatio).toBeCloseTo(600_000 / input, 12);
      expect(body.stats.map((bucket: any) => bucket.cost)).toEqual(
        ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5'].map((model) => expect.closeTo(costs[model]!, 9)),
      );
      expect(body.stats.map((bucket: any) => [bucket.cachedTokens, bucket.thinkingTokens])).toEqual([
        [500_000, 0],
        [0, 1_000],
        [100_000, 0],
      ]);
      for (const row of body.modelBreakdown) expect(row.cost).toBeCloseTo(costs[row.model]!, 9);
      expect(body.modelBreakdown).toHaveLength(4);
    }

    // A recompute rewrites the logs' cost; the change feed carries it into the rollups.
    const price = await service.call('PUT', '/api/public/v2/model-prices/gpt-4o', {
      key,
      body: { usd_per_million_tokens: { input: 1, output: 2 } },
    });
    expect(price.status).toBe(200);
    const recompute = await service.call('POST', '/api/public/v2/requests/cost-recompute', {
      key,
      body: { start_time: new Date(START).toISOString(), end_time: new Date(END).toISOString() },
    });
    expect(recompute.status).toBe(202);
    await service.messaging.idle();
    await service.changes.idle();
    const { body } = await analytics({}, key);
    expect(body.source).toBe('rollups');
    expect(body.totalRequests).toBe(logs.length);
    expect(body.totalCost).toBeCloseTo(3 + costs['gpt-4o-mini']! + costs['claude-sonnet-4-5']!, 9);
    expect(body.stats[0].cost).toBeCloseTo(3, 9);
  });
});

describe('an OTLP span', () => {
  it('is rolled up as the log it becomes, priced with its cached and reasoning tokens', async () => {
    const key = await service.otherWorkspaceKey('analytics-otlp');
    const startNs = BigInt(START + 60_000) * 1_000_000n;
    const attributes = Object.entries({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 1_000_000,
      'gen_ai.usage.output_tokens': 1_000_000,
      'gen_ai.usage.cache_read.input_tokens': 500_000,
      'gen_ai.usage.reasoning.output_tokens': 100,
    }).map(([name, value]) => ({
      key: name,
      value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
    }));
    const span = {
      traceId: '0123456789abcdef0123456789abcdef',
      spanId: '0123456789abcdef',
      name: 'chat gpt-4o',
      kind: 3,
      startTimeUnixNano: String(startNs),
      endTimeUnixNano: String(startNs + 2_000_000_000n),
      attributes,
      status: { code: 1 },
    };
    const exported = await service.call('POST', '/v1/traces', {
      key,
      body: {
        resourceSpans: [
          { resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'm' }, spans: [span] }] },
        ],
      },
    });
    expect(exported.status).toBe(200);
    await service.messaging.idle();
    await service.changes.idle();
    const { body } = await analytics({}, key);
    expect(body).toMatchObject({
      source: 'rollups',
      totalRequests: 1,
      totalCost: 11.875,
      totalCachedTokens: 500_000,
      totalThinkingTokens: 100,
      averageLatency: 2,
    });
  });
});
