import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  type CallResult,
  logRequestBody,
  startTestService,
  type TestService,
} from '#test/support/local-service.ts';

/**
 * POST /log-request and GET /api/public/v2/requests/{id} through the local gateway, as a client sees
 * them: keys, statuses, error bodies, every validation rule, size ceilings, large logs, workspace
 * isolation. Every rejected request must leave the table and the bucket exactly as they were.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  // The first log reserves the id block (a counter item); later counts then see only the log items.
  const warmUp = await service.call('POST', '/log-request', { body: logRequestBody() });
  expect(warmUp.status).toBe(201);
});
afterAll(() => service?.stop());

const MB = 1024 * 1024;
const CEILING = 6 * MB;

/** Runs a request that must be rejected and checks that nothing was stored by it. */
async function rejected(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const items = await service.countItems();
  const objects = await service.countObjects();
  const answer = await service.call(method, path, options);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBeGreaterThanOrEqual(400);
  expect(await service.countItems(), 'table items after a rejected request').toBe(items);
  expect(await service.countObjects(), 'bucket objects after a rejected request').toBe(objects);
  return answer;
}

function expectErrorBody(answer: CallResult, status: number, error: string, message?: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body).toMatchObject({ success: false, message: message ?? expect.any(String), error });
}

/** A JSON body of exactly `bytes` bytes: a valid log padded with an extra string field. */
function paddedBody(bytes: number): string {
  const base = JSON.stringify({ ...logRequestBody(), pad: '' });
  const text = JSON.stringify({ ...logRequestBody(), pad: 'p'.repeat(bytes - Buffer.byteLength(base)) });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

describe('API keys', () => {
  it('answers 401 "Missing API key" without the header', async () => {
    const answer = await rejected('POST', '/log-request', { key: null, body: logRequestBody() });

    expectErrorBody(answer, 401, 'unauthorized', 'Missing API key');
  });

  it('answers 401 "Invalid API key" for a key it did not issue', async () => {
    const answer = await rejected('POST', '/log-request', { key: 'pl_wrong', body: logRequestBody() });

    expectErrorBody(answer, 401, 'unauthorized', 'Invalid API key');
  });

  it('answers 401 on reads too', async () => {
    expectErrorBody(
      await service.call('GET', '/api/public/v2/requests/1', { key: null }),
      401,
      'unauthorized',
      'Missing API key',
    );
    expectErrorBody(
      await service.call('GET', '/api/public/v2/requests/1', { key: 'pl_wrong' }),
      401,
      'unauthorized',
      'Invalid API key',
    );
  });

  it('answers 401 "Invalid API key" for a revoked key', async () => {
    const { createApiKey, revokeApiKey } = await import('#shared/auth/api-keys.ts');
    const { key, summary } = await createApiKey(service.workspaceId);
    expect(await revokeApiKey(service.workspaceId, summary.keyId)).toBe(true);

    const answer = await rejected('POST', '/log-request', { key, body: logRequestBody() });

    expectErrorBody(answer, 401, 'unauthorized', 'Invalid API key');
  });

  it('answers 403 when the key may only read request logs', async () => {
    const key = await service.keyWithPermissions({ request_logs: 'read' });

    const answer = await rejected('POST', '/log-request', { key, body: logRequestBody() });
    expectErrorBody(answer, 403, 'forbidden');

    const logged = await service.call('POST', '/log-request', { body: logRequestBody() });
    const read = await service.call('GET', `/api/public/v2/requests/${logged.body.id}`, { key });
    expect(read.status).toBe(200);
  });

  it.each([
    ['POST', '/log-requests'],
    ['GET', '/log-request'],
    ['GET', '/api/public/v2/requests'],
    ['DELETE', '/api/public/v2/requests/1'],
    ['GET', '/nowhere'],
  ])('answers 404 for %s %s, a route that does not exist', async (method, path) => {
    const answer = await rejected(method, path, method === 'POST' ? { body: logRequestBody() } : {});

    expectErrorBody(answer, 404, 'not_found');
  });
});

describe('POST /log-request: valid logs', () => {
  it('answers 201 with the id, a null prompt_version and the status fields, and stores one item', async () => {
    const items = await service.countItems();
    const objects = await service.countObjects();

    const answer = await service.call('POST', '/log-request', { body: logRequestBody() });

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.any(Number),
      prompt_version: null,
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
    });
    expect(Number.isSafeInteger(answer.body.id) && answer.body.id > 0).toBe(true);
    expect(await service.countItems()).toBe(items + 1);
    expect(await service.countObjects()).toBe(objects);
  });

  it('gives every log a new id', async () => {
    const ids = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const answer = await service.call('POST', '/log-request', { body: logRequestBody() });
        return answer.body.id as number;
      }),
    );

    expect(new Set(ids).size).toBe(10);
  });

  it.each([
    ['WARNING', 'PROVIDER_PARTIAL_RESPONSE', 'content filter triggered'],
    ['WARNING', 'PROVIDER_RATE_LIMIT', 'retried after 429'],
    ['ERROR', 'PROVIDER_TIMEOUT', 'timed out after 60s'],
    ['ERROR', 'UNKNOWN_ERROR', 'something odd'],
  ])('echoes a %s log with %s and its message', async (status, errorType, message) => {
    const answer = await service.call('POST', '/log-request', {
      body: logRequestBody({ status, error_type: errorType, error_message: message }),
    });

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.any(Number),
      prompt_version: null,
      status,
      error_type: errorType,
      error_message: message,
    });
    const read = await service.call('GET', `/api/public/v2/requests/${answer.body.id}`);
    expect(read.body).toMatchObject({ status, error_type: errorType, error_message: message });
  });

  it('reads back every field that was logged, with defaults for the rest', async () => {
    const body = logRequestBody({
      request_start_time: 1705314600,
      request_end_time: '2024-01-15T10:30:02.500Z',
      tags: ['prod', 'eu'],
      metadata: { user_id: 'u-1' },
      parameters: { temperature: 0.3 },
      input_tokens: 12,
      output_tokens: 30,
      price: 0.0004,
      score: 90,
      prompt_version_number: null,
    });

    const created = await service.call('POST', '/log-request', { body });
    const read = await service.call('GET', `/api/public/v2/requests/${created.body.id}`);

    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      success: true,
      id: created.body.id,
      provider: 'openai',
      model: 'gpt-4o',
      input: body.input,
      output: body.output,
      parameters: { temperature: 0.3 },
      tags: ['prod', 'eu'],
      metadata: { user_id: 'u-1' },
      input_tokens: 12,
      output_tokens: 30,
      price: 0.0004,
      score: 90,
      function_name: '',
      prompt_version_number: null,
      status: 'SUCCESS',
      request_start_time: '2024-01-15T10:30:00.000Z',
      request_end_time: '2024-01-15T10:30:02.500Z',
      latency_ms: 2500,
    });
  });
});

describe('POST /log-request: each validation rule answers 422 and stores nothing', () => {
  const without = (field: string) => {
    const body = logRequestBody();
    delete body[field];
    return body;
  };
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ['provider is missing', without('provider'), ['provider']],
    ['model is missing', without('model'), ['model']],
    ['input is missing', without('input'), ['input']],
    ['output is missing', without('output'), ['output']],
    ['request_start_time is missing', without('request_start_time'), ['request_start_time']],
    ['request_end_time is missing', without('request_end_time'), ['request_end_time']],
    ['provider is not a string', logRequestBody({ provider: 42 }), ['provider']],
    ['error_type is given with SUCCESS', logRequestBody({ error_type: 'PROVIDER_ERROR' }), ['error_type']],
    [
      'PROVIDER_TIMEOUT comes with WARNING',
      logRequestBody({ status: 'WARNING', error_type: 'PROVIDER_TIMEOUT' }),
      ['error_type'],
    ],
    [
      'PROVIDER_PARTIAL_RESPONSE comes with ERROR',
      logRequestBody({ status: 'ERROR', error_type: 'PROVIDER_PARTIAL_RESPONSE' }),
      ['error_type'],
    ],
    [
      'VARIABLE_MISSING_OR_EMPTY comes with ERROR',
      logRequestBody({ status: 'ERROR', error_type: 'VARIABLE_MISSING_OR_EMPTY' }),
      ['error_type'],
    ],
    ['error_message is given with SUCCESS', logRequestBody({ error_message: 'oops' }), ['error_message']],
    [
      'the request ends before it starts',
      logRequestBody({
        request_start_time: '2024-01-15T10:30:05Z',
        request_end_time: '2024-01-15T10:30:00Z',
      }),
      ['request_end_time'],
    ],
    [
      'a timestamp is not a date',
      logRequestBody({ request_start_time: 'last tuesday' }),
      ['request_start_time'],
    ],
    ['a timestamp is a boolean', logRequestBody({ request_end_time: false }), ['request_end_time']],
    ['a tag is 513 characters', logRequestBody({ tags: ['x'.repeat(513)] }), ['tags', 0]],
    ['tags is not a list', logRequestBody({ tags: 'prod' }), ['tags']],
    [
      'a metadata key is 1025 characters',
      logRequestBody({ metadata: { ['k'.repeat(1025)]: 'v' } }),
      ['metadata', 'k'.repeat(1025)],
    ],
    ['a metadata value is not a string', logRequestBody({ metadata: { n: 1 } }), ['metadata', 'n']],
    [
      'error_message is 1025 characters',
      logRequestBody({ status: 'ERROR', error_message: 'm'.repeat(1025) }),
      ['error_message'],
    ],
    ['score is 101', logRequestBody({ score: 101 }), ['score']],
    ['score is -1', logRequestBody({ score: -1 }), ['score']],
    ['score is 1.5', logRequestBody({ score: 1.5 }), ['score']],
    ['input_tokens is negative', logRequestBody({ input_tokens: -1 }), ['input_tokens']],
    ['output_tokens is negative', logRequestBody({ output_tokens: -5 }), ['output_tokens']],
    ['output_tokens is not an integer', logRequestBody({ output_tokens: 2.5 }), ['output_tokens']],
    ['price is negative', logRequestBody({ price: -0.5 }), ['price']],
    ['prompt_version_number is 0', logRequestBody({ prompt_version_number: 0 }), ['prompt_version_number']],
    [
      'a message content is a plain string',
      logRequestBody({ input: { type: 'chat', messages: [{ role: 'user', content: 'Hello!' }] } }),
      ['input', 'messages', 0, 'content'],
    ],
    [
      'a completion content is a plain string',
      logRequestBody({ output: { type: 'completion', content: 'Hi' } }),
      ['output', 'content'],
    ],
    [
      'a message role is unknown',
      logRequestBody({
        input: { type: 'chat', messages: [{ role: 'narrator', content: [{ type: 'text', text: 'x' }] }] },
      }),
      ['input', 'messages', 0, 'role'],
    ],
    ['status is unknown', logRequestBody({ status: 'DONE' }), ['status']],
    ['error_type is unknown', logRequestBody({ status: 'ERROR', error_type: 'OOPS' }), ['error_type']],
    ['input is not a blueprint', logRequestBody({ input: 'Hello!' }), ['input']],
  ];

  it.each(cases)('answers 422 when %s', async (_what, body, loc) => {
    const answer = await rejected('POST', '/log-request', { body });

    expectErrorBody(answer, 422, 'validation_error');
    expect(answer.body.detail).toEqual(
      expect.arrayContaining([{ loc: ['body', ...loc], msg: expect.any(String), type: expect.any(String) }]),
    );
  });
});

describe('POST /log-request: bodies that are not a log', () => {
  it.each([
    ['not JSON', '{"provider": "openai", '],
    ['plain text', 'hello'],
  ])('answers 400 when the body is %s', async (_what, rawBody) => {
    const answer = await rejected('POST', '/log-request', { rawBody });

    expectErrorBody(answer, 400, 'invalid_json');
  });

  it.each([
    ['a JSON array', JSON.stringify([logRequestBody()])],
    ['a JSON string', '"log me"'],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
  ])('answers 400 when the body is %s', async (_what, rawBody) => {
    const answer = await rejected('POST', '/log-request', { rawBody });

    expectErrorBody(answer, 400, 'invalid_body');
  });

  it('answers 400 when there is no body', async () => {
    const answer = await rejected('POST', '/log-request', {
      headers: { 'Content-Type': 'application/json' },
    });

    expectErrorBody(answer, 400, 'invalid_json');
  });

  it('answers 415 for a body that is not JSON by content type', async () => {
    const answer = await rejected('POST', '/log-request', {
      rawBody: '<log><provider>openai</provider></log>',
      headers: { 'Content-Type': 'application/xml' },
    });

    expectErrorBody(answer, 415, 'unsupported_media_type');
  });

  it('answers 413 for a 20 MB body', async () => {
    const answer = await rejected('POST', '/log-request', { rawBody: paddedBody(20 * MB) });

    expectErrorBody(answer, 413, 'payload_too_large');
  });

  it('answers 413 to a client still sending a body declared over 6 MB, instead of closing under it', async () => {
    // The whole exchange, to the socket's close: an error while sending counts as much as the status.
    const { statusCode, error } = await new Promise<{ statusCode?: number; error?: string }>((resolve) => {
      const seen: { statusCode?: number; error?: string } = {};
      const request = httpRequest(new URL('/log-request', service.baseUrl), {
        method: 'POST',
        headers: {
          'X-API-KEY': service.apiKey,
          'Content-Type': 'application/json',
          'Content-Length': 8 * MB,
        },
      });
      request.on('response', (response) => {
        seen.statusCode = response.statusCode;
        response.resume();
      });
      request.on('error', (failure) => {
        seen.error = failure.message;
      });
      request.on('close', () => resolve(seen));
      const chunk = Buffer.alloc(MB, 0x20);
      const write = (left: number): void => {
        if (left === 0) return void request.end();
        if (request.write(chunk)) setImmediate(() => write(left - 1));
        else request.once('drain', () => write(left - 1));
      };
      write(8);
    });

    expect(error).toBeUndefined();
    expect(statusCode).toBe(413);
  });

  it('answers 413 for a body over the ceiling before looking at the key', async () => {
    const answer = await rejected('POST', '/log-request', { key: null, rawBody: paddedBody(20 * MB) });

    expectErrorBody(answer, 413, 'payload_too_large');
  });

  it('answers 413 for a body one byte over 6 MB', async () => {
    const answer = await rejected('POST', '/log-request', { rawBody: paddedBody(CEILING + 1) });

    expectErrorBody(answer, 413, 'payload_too_large');
  });

  it('answers 413 for a chunked body over 6 MB that declares no length', async () => {
    const items = await service.countItems();
    const objects = await service.countObjects();
    const text = Buffer.from(paddedBody(7 * MB));
    const chunk = 256 * 1024;
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= text.length) return controller.close();
        controller.enqueue(text.subarray(offset, offset + chunk));
        offset += chunk;
      },
    });

    const response = await fetch(new URL('/log-request', service.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-KEY': service.apiKey },
      body: stream,
      duplex: 'half',
    } as RequestInit);

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, error: 'payload_too_large' });
    expect(await service.countItems()).toBe(items);
    expect(await service.countObjects()).toBe(objects);
  });
});

describe('POST /log-request: a 5 MB log', () => {
  it('answers 201 and reads back byte-identical in its JSON values', async () => {
    const texts = [
      'Grüße 👋',
      '日本語',
      'emoji 👩‍👩‍👧',
      'quote " backslash \\ newline \n',
      'lone \ud800 surrogate',
    ];
    const content = Array.from({ length: 2400 }, (_, i) => ({
      type: 'text',
      text: `${texts[i % texts.length]} ${i} ${'the quick brown fox '.repeat(70)}`,
      z_last: { b: 2, a: 1 },
      a_first: [0.1, 1e21, -7],
    }));
    const body = logRequestBody({
      input: { type: 'chat', messages: [{ role: 'user', content }] },
      output: { type: 'completion', content: content.slice(0, 1200).reverse() },
    });
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(bytes).toBeGreaterThan(5 * MB);
    expect(bytes).toBeLessThan(CEILING);
    const items = await service.countItems();
    const objects = await service.countObjects();

    const created = await service.call('POST', '/log-request', { body });

    expect(created.status).toBe(201);
    expect(await service.countItems()).toBe(items + 1);
    expect(await service.countObjects()).toBe(objects + 1);
    const read = await service.call('GET', `/api/public/v2/requests/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.input).toEqual(body.input);
    expect(read.body.output).toEqual(body.output);
    expect(JSON.stringify(read.body.input)).toBe(JSON.stringify(body.input));
    expect(JSON.stringify(read.body.output)).toBe(JSON.stringify(body.output));
  });
});

describe('GET /api/public/v2/requests/{id}', () => {
  it("answers 404 for another workspace's log, and its own workspace still reads it", async () => {
    const otherKey = await service.otherWorkspaceKey('e2e-other-workspace');
    const theirs = await service.call('POST', '/log-request', { key: otherKey, body: logRequestBody() });
    expect(theirs.status).toBe(201);
    const ours = await service.call('POST', '/log-request', { body: logRequestBody() });

    const fromUs = await service.call('GET', `/api/public/v2/requests/${theirs.body.id}`);
    const fromThem = await service.call('GET', `/api/public/v2/requests/${ours.body.id}`, { key: otherKey });

    expectErrorBody(fromUs, 404, 'not_found');
    expectErrorBody(fromThem, 404, 'not_found');
    const own = await service.call('GET', `/api/public/v2/requests/${theirs.body.id}`, { key: otherKey });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(theirs.body.id);
    expect(own.body.workspace_id).not.toBe(service.workspaceId);
  });

  it('answers a 4xx, not a 500, for an id with broken percent-encoding', async () => {
    const answer = await service.call('GET', '/api/public/v2/requests/%E0%A4%A');

    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body).toMatchObject({ success: false });
  });

  it('answers 404 for an id nobody logged', async () => {
    expectErrorBody(await service.call('GET', '/api/public/v2/requests/999999999'), 404, 'not_found');
  });

  it('answers 404 for an id written with leading zeros: only the canonical form names a log', async () => {
    const { body } = await service.call('POST', '/log-request', { body: logRequestBody() });
    expect((await service.call('GET', `/api/public/v2/requests/${body.id}`)).status).toBe(200);
    const padded = await service.call('GET', `/api/public/v2/requests/000${body.id}`);
    expectErrorBody(padded, 404, 'not_found');
    expect(padded.body.message).toBe(`Not found: request_id "000${body.id}"`);
  });

  it.each([['abc'], ['1.5'], ['-1'], ['0']])('answers 422 at the path for id %j', async (id) => {
    const answer = await service.call('GET', `/api/public/v2/requests/${id}`);

    expectErrorBody(answer, 422, 'validation_error');
    expect(answer.body.detail[0].loc).toEqual(['path', 'request_id']);
  });
});

describe('POST /log-request: bodies at the edges', () => {
  it('answers 400 for a body nested deeper than the limit, and stores nothing', async () => {
    // Built as text: JSON.stringify itself cannot go this deep, which is what the limit protects.
    const deep = `${'{"d":'.repeat(5000)}"leaf"${'}'.repeat(5000)}`;
    const body = JSON.stringify(logRequestBody({ parameters: '__DEEP__' })).replace('"__DEEP__"', deep);
    const answer = await rejected('POST', '/log-request', { rawBody: body });

    expectErrorBody(answer, 400, 'json_too_deep');
  });

  it('accepts a JSON schema nested a few dozen levels deep', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 60; i++) schema = { type: 'object', properties: { child: schema } };
    const answer = await service.call('POST', '/log-request', {
      body: logRequestBody({ parameters: { response_format: { json_schema: { schema } } } }),
    });

    expect(answer.status).toBe(201);
  });

  it('accepts a body that starts with a UTF-8 byte-order mark', async () => {
    const answer = await service.call('POST', '/log-request', {
      rawBody: `\uFEFF${JSON.stringify(logRequestBody())}`,
    });

    expect(answer.status).toBe(201);
  });

  it('refuses __proto__ as a metadata key instead of dropping it', async () => {
    const body = JSON.stringify(logRequestBody()).replace(/}$/, ',"metadata":{"__proto__":"x","a":"b"}}');
    const answer = await rejected('POST', '/log-request', { rawBody: body });

    expectErrorBody(answer, 422, 'validation_error');
    expect(answer.body.detail[0].loc).toEqual(['body', 'metadata', '__proto__']);
  });

  it('keeps fields the API does not define and answers an SDK trace_id where the reference puts it', async () => {
    const created = await service.call('POST', '/log-request', {
      body: logRequestBody({ trace_id: 'trace-123', span_ref: 7, custom: { nested: [1, 'two'] } }),
    });
    const read = await service.call('GET', `/api/public/v2/requests/${created.body.id}`);

    expect(read.body.trace_id).toBe('trace-123');
    expect(read.body.extra).toEqual({ trace_id: 'trace-123', span_ref: 7, custom: { nested: [1, 'two'] } });
  });

  it('bounds the error message that quotes a huge client value', async () => {
    const answer = await rejected('POST', '/log-request', {
      body: logRequestBody({ metadata: { ['k'.repeat(100_000)]: 'v' } }),
    });

    expectErrorBody(answer, 422, 'validation_error');
    expect(answer.body.message.length).toBeLessThanOrEqual(1024);
    expect(String(answer.body.detail[0].loc[2]).length).toBeLessThanOrEqual(2048);
  });
});

describe('Lambda payload ceiling', () => {
  it('answers 413 for a body under 6 MB whose escaping in the Lambda event passes 6 MB', async () => {
    // Each `"` in a JSON string is sent as \" (2 bytes) and is \\\" (4 bytes) inside the event.
    const quotes = '"'.repeat(Math.floor(2.5 * MB));
    const body = JSON.stringify(logRequestBody({ tags: [], note: quotes }));
    expect(Buffer.byteLength(body)).toBeLessThan(CEILING);

    const answer = await rejected('POST', '/log-request', { rawBody: body });

    expectErrorBody(answer, 413, 'payload_too_large');
  });

  it('reads back a log of several MB with the input once, pointing the reference field at it', async () => {
    const text = 'x'.repeat(3.2 * MB);
    const input = { type: 'completion', content: [{ type: 'text', text }] };
    const created = await service.call('POST', '/log-request', { body: logRequestBody({ input }) });
    const read = await service.call('GET', `/api/public/v2/requests/${created.body.id}`);

    expect(read.status).toBe(200);
    expect(read.body.input).toEqual(input);
    expect(read.body.prompt_blueprint).not.toHaveProperty('prompt_template');
    expect(read.body.prompt_blueprint.prompt_template_in).toBe('input');
  });
});
