import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spansBulkResponseSchema, traceResponseSchema } from '#shared/traces/schemas.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * POST /spans-bulk and GET /api/public/v2/traces/{trace_id} through the local gateway: storage as a tree,
 * idempotent re-sends, request-log links (created from log_request, or named by attributes), workspace
 * isolation, validation that writes nothing, and large spans kept whole.
 */
let service: TestService;
let otherKey: string;
let readOnlyKey: string;

beforeAll(async () => {
  service = await startTestService();
  otherKey = await service.otherWorkspaceKey('traces-e2e-other');
  readOnlyKey = await service.keyWithPermissions({ request_logs: 'read' });
  // The first log reserves the id block (a counter item); later item counts then see only what a call adds.
  expect((await service.call('POST', '/log-request', { body: logRequestBody() })).status).toBe(201);
});
afterAll(() => service?.stop());

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const BASE_NS = 1_700_000_000_000_000_000n;

/** A span as the JavaScript SDK's exporter sends it; times are nanoseconds after BASE_NS. */
function sdkSpan(
  traceId: string,
  spanId: string,
  parentId: string | null,
  times: [number, number],
  overrides: Record<string, unknown> = {},
) {
  return {
    name: `span ${spanId}`,
    context: { trace_id: traceId, span_id: spanId, trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: parentId,
    start_time: (BASE_NS + BigInt(times[0])).toString(),
    end_time: (BASE_NS + BigInt(times[1])).toString(),
    status: { status_code: 'StatusCode.OK' },
    attributes: { function_input: '[1,2]', function_output: '3' },
    events: [{ name: 'checkpoint', timestamp: (BASE_NS + 5n).toString(), attributes: { n: 1 } }],
    links: [],
    resource: {
      attributes: { 'service.name': 'prompt-layer-js', 'process.pid': 4242 },
      schema_url: '',
    },
    ...overrides,
  };
}

const postSpans = (spans: unknown[], key?: string) =>
  service.call('POST', '/spans-bulk', { body: { spans }, ...(key ? { key } : {}) });

const getTrace = (traceId: string, key?: string) =>
  service.call('GET', `/api/public/v2/traces/${traceId}`, key ? { key } : {});

async function postOk(spans: unknown[]) {
  const answer = await postSpans(spans);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(201);
  expect(spansBulkResponseSchema.safeParse(answer.body).success).toBe(true);
  return answer.body;
}

async function traceOk(traceId: string) {
  const answer = await getTrace(traceId);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
  const parsed = traceResponseSchema.safeParse(answer.body);
  expect(parsed.error).toBeUndefined();
  return answer.body;
}

async function loggedRequest(key?: string): Promise<number> {
  const answer = await service.call('POST', '/log-request', {
    body: logRequestBody({ input_tokens: 7, output_tokens: 9, price: 0.25 }),
    ...(key ? { key } : {}),
  });
  expect(answer.status).toBe(201);
  return answer.body.id;
}

describe('storing spans and reading a trace', () => {
  it('answers the tree: children under parents by start time, times, durations and detail', async () => {
    const trace = hex(16);
    const [root, first, second, grandchild] = [hex(8), hex(8), hex(8), hex(8)];

    const created = await postOk([
      sdkSpan(trace, grandchild, second, [3_000_000, 3_500_000]),
      sdkSpan(trace, second, root, [2_000_000, 4_000_123]),
      sdkSpan(trace, first, root, [1_000_000, 1_500_000]),
      sdkSpan(trace, root, null, [0, 5_000_000], { kind: 'SpanKind.SERVER' }),
    ]);

    expect(created).toEqual({
      success: true,
      spans: expect.arrayContaining([
        { span_id: root, trace_id: trace, name: `span ${root}`, request_log_id: null },
      ]),
      request_logs: [],
    });
    expect(created.spans).toHaveLength(4);

    const body = await traceOk(trace);
    expect(body).toMatchObject({
      success: true,
      trace_id: trace,
      start_time: '2023-11-14T22:13:20.000Z',
      end_time: '2023-11-14T22:13:20.005Z',
      duration_ms: 5,
      span_count: 4,
      truncated: false,
      detail_truncated: false,
    });
    expect(body.spans).toHaveLength(1);
    const top = body.spans[0];
    expect(top).toMatchObject({
      span_id: root,
      parent_id: null,
      kind: 'SpanKind.SERVER',
      start_time_unix_nano: BASE_NS.toString(),
      status: { status_code: 'StatusCode.OK', description: null },
      attributes: { function_input: '[1,2]', function_output: '3' },
      events: [{ name: 'checkpoint', timestamp: (BASE_NS + 5n).toString(), attributes: { n: 1 } }],
      resource: { attributes: { 'service.name': 'prompt-layer-js', 'process.pid': 4242 } },
      request_log_id: null,
    });
    expect(top.children.map((child: { span_id: string }) => child.span_id)).toEqual([first, second]);
    expect(top.children[1]).toMatchObject({
      duration_ms: 2.000123,
      end_time_unix_nano: (BASE_NS + 4_000_123n).toString(),
      children: [{ span_id: grandchild, parent_id: second, children: [] }],
    });
  });

  it('accepts times as JSON integers, upper-case ids and an empty parent_id, as the reference shows', async () => {
    const trace = hex(16).toUpperCase();
    const span = hex(8).toUpperCase();

    await postOk([
      sdkSpan(trace, span, '', [0, 0], {
        start_time: 1.63e18,
        end_time: 1630000001000000000,
        status: { status_code: 'StatusCode.ERROR', description: 'boom' },
      }),
    ]);

    const body = await traceOk(trace.toLowerCase());
    expect(body.spans[0]).toMatchObject({
      span_id: span.toLowerCase(),
      parent_id: null,
      start_time: '2021-08-26T17:46:40.000Z',
      duration_ms: 1000,
      status: { status_code: 'StatusCode.ERROR', description: 'boom' },
    });
    expect((await getTrace(trace)).status).toBe(200);
  });

  it('puts spans whose parent has not arrived at the root', async () => {
    const trace = hex(16);
    const orphan = hex(8);

    await postOk([sdkSpan(trace, orphan, hex(8), [10, 20])]);

    const body = await traceOk(trace);
    expect(body.spans.map((s: { span_id: string }) => s.span_id)).toEqual([orphan]);
  });

  it('stores a span sent again once: no second item, the latest copy wins', async () => {
    const trace = hex(16);
    const batch = [sdkSpan(trace, hex(8), null, [0, 10]), sdkSpan(trace, hex(8), null, [5, 15])];
    await postOk(batch);
    const items = await service.countItems();

    await postOk(batch);
    await postOk([
      { ...batch[0], name: 'renamed' },
      { ...batch[0], name: 'renamed' },
    ]);

    expect(await service.countItems()).toBe(items);
    const body = await traceOk(trace);
    expect(body.span_count).toBe(2);
    expect(body.spans.map((s: { name: string }) => s.name)).toContain('renamed');
  });

  it('accepts an empty batch', async () => {
    const answer = await postSpans([]);

    expect(answer).toMatchObject({ status: 201, body: { success: true, spans: [], request_logs: [] } });
  });

  it('keeps a span with huge attributes whole, in S3, and answers it back exactly', async () => {
    const trace = hex(16);
    const big = 'x'.repeat(600_000);
    const objects = await service.countObjects();

    await postOk([sdkSpan(trace, hex(8), null, [0, 1], { attributes: { function_output: big, n: 1 } })]);

    expect(await service.countObjects()).toBe(objects + 1);
    const body = await traceOk(trace);
    expect(body.spans[0].attributes).toEqual({ function_output: big, n: 1 });
  });

  it('answers 404 for an unknown trace and 422 for a malformed id', async () => {
    expect(await getTrace(hex(16))).toMatchObject({
      status: 404,
      body: { success: false, error: 'not_found' },
    });
    expect((await getTrace('not-hex')).status).toBe(422);
    expect((await getTrace('a'.repeat(65))).status).toBe(422);
  });
});

describe('validation writes nothing', () => {
  const trace = hex(16);

  it.each([
    ['more than 1,000 spans', () => Array.from({ length: 1001 }, () => sdkSpan(trace, hex(8), null, [0, 1]))],
    ['a trace id that is not hex', () => [sdkSpan('W#1#TR#x', hex(8), null, [0, 1])]],
    ['a span id over 64 characters', () => [sdkSpan(trace, 'a'.repeat(65), null, [0, 1])]],
    ['an empty span id', () => [sdkSpan(trace, '', null, [0, 1])]],
    ['a parent id with a key separator', () => [sdkSpan(trace, hex(8), 'a#b', [0, 1])]],
    ['an end before the start', () => [sdkSpan(trace, hex(8), null, [10, 5])]],
    ['a time with a fraction', () => [sdkSpan(trace, hex(8), null, [0, 1], { start_time: 1.5 })]],
    [
      'a time in seconds as an ISO string',
      () => [sdkSpan(trace, hex(8), null, [0, 1], { end_time: '2024-01-01' })],
    ],
    ['an unknown kind', () => [sdkSpan(trace, hex(8), null, [0, 1], { kind: 'CLIENT' })]],
    [
      'an unknown status code',
      () => [sdkSpan(trace, hex(8), null, [0, 1], { status: { status_code: 'OK' } })],
    ],
    ['attributes that are not an object', () => [sdkSpan(trace, hex(8), null, [0, 1], { attributes: [] })]],
  ])('refuses %s with a 422', async (_, spans) => {
    const answer = await service.rejected('POST', '/spans-bulk', { body: { spans: spans() } });

    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('validation_error');
  });

  it('refuses close_after true (closing traces is not supported) and accepts false', async () => {
    const spans = [sdkSpan(trace, hex(8), null, [0, 1])];

    const refused = await service.rejected('POST', '/spans-bulk', { body: { spans, close_after: true } });

    expect(refused.body.detail[0].loc).toEqual(['body', 'close_after']);
    expect((await service.call('POST', '/spans-bulk', { body: { spans, close_after: false } })).status).toBe(
      201,
    );
  });

  it('refuses a bad log_request in any span, before any log or span is written', async () => {
    const spans = [
      sdkSpan(trace, hex(8), null, [0, 1], { log_request: logRequestBody() }),
      sdkSpan(trace, hex(8), null, [0, 1], { log_request: logRequestBody({ input_tokens: -1 }) }),
    ];

    const answer = await service.rejected('POST', '/spans-bulk', { body: { spans } });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'spans', 1, 'log_request', 'input_tokens']);
  });

  it('refuses a log_request naming an unknown prompt, before any log or span is written', async () => {
    const spans = [
      sdkSpan(trace, hex(8), null, [0, 1], { log_request: logRequestBody() }),
      sdkSpan(trace, hex(8), null, [0, 1], {
        log_request: logRequestBody({ prompt_name: 'no such prompt' }),
      }),
    ];

    const answer = await service.rejected('POST', '/spans-bulk', { body: { spans } });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'spans', 1, 'log_request', 'prompt_name']);
  });

  it('answers 401 without a key and 403 for a read-only key', async () => {
    const spans = [sdkSpan(trace, hex(8), null, [0, 1])];
    expect((await service.rejected('POST', '/spans-bulk', { key: null, body: { spans } })).status).toBe(401);
    expect(
      (await service.rejected('POST', '/spans-bulk', { key: readOnlyKey, body: { spans } })).status,
    ).toBe(403);
  });
});

describe('request-log links', () => {
  it('creates the log of an embedded log_request, times inherited from the span, once across re-sends', async () => {
    const trace = hex(16);
    const span = hex(8);
    const body = logRequestBody();
    delete body.request_start_time;
    delete body.request_end_time;
    const batch = [sdkSpan(trace, span, null, [0, 2_000_000_000], { log_request: body })];

    const created = await postOk(batch);

    expect(created.request_logs).toEqual([{ id: expect.any(Number), span_id: span, trace_id: trace }]);
    const logId = created.request_logs[0].id;
    expect(created.spans[0].request_log_id).toBe(logId);
    const log = await service.call('GET', `/api/public/v2/requests/${logId}`);
    expect(log.body).toMatchObject({
      request_start_time: '2023-11-14T22:13:20.000Z',
      request_end_time: '2023-11-14T22:13:22.000Z',
      provider: 'openai',
    });

    const items = await service.countItems();
    const again = await postOk(batch);
    expect(again).toMatchObject({ request_logs: [], spans: [{ request_log_id: logId }] });
    expect(await service.countItems()).toBe(items);

    const read = await traceOk(trace);
    expect(read.spans[0]).toMatchObject({
      request_log_id: logId,
      request_log: { id: logId, provider: 'openai', model: 'gpt-4o', status: 'SUCCESS', latency_ms: 2000 },
    });
  });

  it('makes one log of a span sent five times at once', async () => {
    const trace = hex(16);
    const span = hex(8);
    const marker = hex(8);
    const batch = [
      sdkSpan(trace, span, null, [0, 1], { log_request: logRequestBody({ metadata: { marker } }) }),
    ];

    const answers = await Promise.all(Array.from({ length: 5 }, () => postOk(batch)));

    const linked = new Set(answers.map((answer) => answer.spans[0].request_log_id));
    expect(linked.size).toBe(1);
    const found = await service.call('POST', '/api/public/v2/requests/search', {
      body: {
        filter_group: {
          logic: 'AND',
          filters: [{ field: 'metadata', operator: 'key_equals', nested_key: 'marker', value: marker }],
        },
      },
    });
    expect(found.status).toBe(200);
    expect(found.body.items.map((item: { id: number }) => item.id)).toEqual([...linked]);
    expect((await traceOk(trace)).spans[0].request_log_id).toBe([...linked][0]);
  });

  it('gives the log created from a log_request the trace and span it was made in', async () => {
    const trace = hex(16);
    const span = hex(8);
    const created = await postOk([sdkSpan(trace, span, null, [0, 1], { log_request: logRequestBody() })]);

    const log = await service.call('GET', `/api/public/v2/requests/${created.request_logs[0].id}`);
    expect(log.body).toMatchObject({ trace_id: trace, span_id: span });
  });

  it('never stores an api_key sent inside a log_request', async () => {
    const trace = hex(16);
    const created = await postOk([
      sdkSpan(trace, hex(8), null, [0, 1], {
        log_request: logRequestBody({ api_key: service.apiKey, custom_field: 'kept' }),
      }),
    ]);

    const log = await service.call('GET', `/api/public/v2/requests/${created.request_logs[0].id}`);
    expect(log.body.extra).toMatchObject({ custom_field: 'kept' });
    expect(log.body.extra).not.toHaveProperty('api_key');
    expect(JSON.stringify(log.body)).not.toContain(service.apiKey);
  });

  it('links a log named by an attribute or by the SDK function_output, with a summary', async () => {
    const trace = hex(16);
    const [byAttribute, byOutput, byString] = [
      await loggedRequest(),
      await loggedRequest(),
      await loggedRequest(),
    ];
    const spans = [
      sdkSpan(trace, 'a1', null, [0, 10], { attributes: { 'promptlayer.request_id': byAttribute } }),
      sdkSpan(trace, 'a2', 'a1', [1, 2], {
        attributes: { function_output: JSON.stringify({ request_id: byOutput, raw_response: {} }) },
      }),
      sdkSpan(trace, 'a3', 'a1', [3, 4], { attributes: { request_id: String(byString) } }),
    ];

    const created = await postOk(spans);

    expect(created.spans.map((s: { request_log_id: number }) => s.request_log_id)).toEqual([
      byAttribute,
      byOutput,
      byString,
    ]);
    expect(created.request_logs).toEqual([]);
    const read = await traceOk(trace);
    expect(read.spans[0].request_log).toEqual({
      id: byAttribute,
      provider: 'openai',
      model: 'gpt-4o',
      status: 'SUCCESS',
      prompt_name: null,
      input_tokens: 7,
      output_tokens: 9,
      price: 0.25,
      latency_ms: 5000,
    });
  });

  it('links nothing for an unknown id or a log of another workspace, and says nothing about it', async () => {
    const trace = hex(16);
    const foreign = await loggedRequest(otherKey);
    const spans = [
      sdkSpan(trace, 'b1', null, [0, 1], { attributes: { request_id: foreign } }),
      sdkSpan(trace, 'b2', null, [0, 1], { attributes: { request_id: 999_999_999 } }),
      sdkSpan(trace, 'b3', null, [0, 1], { attributes: { function_output: '{not json' } }),
    ];

    const created = await postOk(spans);

    expect(created.spans.map((s: { request_log_id: number | null }) => s.request_log_id)).toEqual([
      null,
      null,
      null,
    ]);
    const read = await traceOk(trace);
    expect(read.spans.map((s: { request_log: unknown }) => s.request_log)).toEqual([null, null, null]);
  });
});

describe('workspace isolation', () => {
  it('answers 404 for a trace of another workspace, and keeps same-id traces apart', async () => {
    const trace = hex(16);
    await postOk([sdkSpan(trace, 'c1', null, [0, 1])]);

    expect((await getTrace(trace, otherKey)).status).toBe(404);

    expect((await postSpans([sdkSpan(trace, 'c2', null, [0, 1])], otherKey)).status).toBe(201);
    const mine = await traceOk(trace);
    expect(mine.spans.map((s: { span_id: string }) => s.span_id)).toEqual(['c1']);
  });

  it('lets a read-only key read a trace', async () => {
    const trace = hex(16);
    await postOk([sdkSpan(trace, 'd1', null, [0, 1])]);

    expect((await getTrace(trace, readOnlyKey)).status).toBe(200);
  });
});
