import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLP_DESCRIPTOR } from '#shared/otlp/descriptor.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';
import { publish, uniqueName } from '#test/support/prompts.ts';

/**
 * POST /v1/traces with hand-made exports: bad bodies refused before any write, spans that cannot be
 * stored counted in partialSuccess (never dropped silently), redelivery stored and logged once, the
 * Langfuse-compatible alias's Basic auth, and workspace isolation.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR);
const requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const responseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

let counter = 0;
const hex = (length: number) => {
  counter++;
  return (counter.toString(16).padStart(8, '0') + 'c0ffee'.repeat(6)).slice(0, length);
};
const nowNs = () => `${BigInt(Date.now()) * 1_000_000n}`;

interface SpanOptions {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  start?: string;
  end?: string;
  attributes?: Record<string, string | number>;
}

/** An OTLP/JSON span; attributes as AnyValues. */
function jsonSpan(options: SpanOptions = {}) {
  const start = options.start ?? nowNs();
  return {
    traceId: options.traceId ?? hex(32),
    spanId: options.spanId ?? hex(16),
    ...(options.parentSpanId ? { parentSpanId: options.parentSpanId } : {}),
    name: options.name ?? 'work',
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: options.end ?? start,
    attributes: Object.entries(options.attributes ?? {}).map(([key, value]) => ({
      key,
      value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
    })),
    status: { code: 1 },
  };
}

const exportOf = (spans: object[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
      scopeSpans: [{ scope: { name: 'manual' }, spans }],
    },
  ],
});

/** The same export as protobuf bytes (ids as bytes, as exporters send them). */
function protobufOf(request: ReturnType<typeof exportOf>): Buffer {
  const copy = structuredClone(request) as {
    resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  for (const span of copy.resourceSpans[0]!.scopeSpans[0]!.spans) {
    for (const name of ['traceId', 'spanId', 'parentSpanId'])
      if (typeof span[name] === 'string') span[name] = Buffer.from(span[name] as string, 'hex');
  }
  return Buffer.from(requestType.encode(requestType.fromObject(copy)).finish());
}

const postJson = (body: unknown, options: { key?: string | null; query?: Record<string, string> } = {}) =>
  service.call('POST', '/v1/traces', { body, ...options });

const chatAttributes = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.usage.input_tokens': 12,
  'gen_ai.usage.output_tokens': 3,
};

describe('POST /v1/traces: bodies refused before any write', () => {
  it('answers 400 to truncated and to garbage protobuf', async () => {
    const valid = protobufOf(exportOf([jsonSpan()]));
    for (const bytes of [
      valid.subarray(0, valid.length - 7),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    ]) {
      const answer = await service.rejected('POST', '/v1/traces', {
        rawBody: bytes,
        headers: { 'Content-Type': 'application/x-protobuf' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_protobuf');
    }
  });

  it('answers 400 to JSON that is not an OTLP export, and to invalid gzip', async () => {
    for (const body of [{ spans: [jsonSpan()] }, { resourceSpans: {} }, [1, 2]]) {
      const answer = await service.rejected('POST', '/v1/traces', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_otlp');
    }
    const gzip = await service.rejected('POST', '/v1/traces', {
      rawBody: Buffer.from([0x1f, 0x8b, 1, 2, 3]),
      headers: { 'Content-Encoding': 'gzip' },
    });
    expect(gzip.status).toBe(400);
  });

  it('answers 415 to an unknown content type or content encoding', async () => {
    const csv = await service.rejected('POST', '/v1/traces', {
      rawBody: 'a,b',
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(csv.status).toBe(415);
    const brotli = await service.rejected('POST', '/v1/traces', {
      body: exportOf([jsonSpan()]),
      headers: { 'Content-Encoding': 'br' },
    });
    expect(brotli.status).toBe(415);
  });

  it('answers 413 to a gzip body that decompresses past the limit (a 100 MB attribute)', async () => {
    const huge = JSON.stringify(
      exportOf([jsonSpan({ attributes: { blob: 'x'.repeat(100 * 1024 * 1024) } })]),
    );
    const answer = await service.rejected('POST', '/v1/traces', {
      rawBody: gzipSync(huge),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toMatch(/smaller batches/);
  });

  it('needs request_logs edit: a read-only key gets 403', async () => {
    const key = await service.keyWithPermissions({ request_logs: 'read' });
    expect((await service.rejected('POST', '/v1/traces', { body: exportOf([jsonSpan()]), key })).status).toBe(
      403,
    );
  });
});

describe('POST /v1/traces: spans that cannot be stored', () => {
  it('refuses a span with a 5 MB attribute, storing nothing of it, and says so', async () => {
    const items = await service.countItems();
    const objects = await service.countObjects();
    const big = jsonSpan({ attributes: { 'gen_ai.prompt': 'y'.repeat(5 * 1024 * 1024) } });
    const answer = await service.call('POST', '/v1/traces', {
      rawBody: gzipSync(JSON.stringify(exportOf([big]))),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: 1,
      errorMessage: expect.stringMatching(/over the 4194304 a span may have/),
    });
    expect(await service.countItems()).toBe(items);
    expect(await service.countObjects()).toBe(objects);
  });

  it('refuses the spans of a resource nested too deeply or too large, storing nothing of them', async () => {
    let deep: object = { stringValue: 'x' };
    for (let i = 0; i < 40; i++) deep = { arrayValue: { values: [deep] } };
    const withResource = (resource: object) => ({
      resourceSpans: [
        { resource: { attributes: [resource] }, scopeSpans: [{ spans: [jsonSpan(), jsonSpan()] }] },
      ],
    });
    const items = await service.countItems();
    const objects = await service.countObjects();
    const nested = await postJson(withResource({ key: 'deep', value: deep }));
    expect(nested.status).toBe(200);
    expect(nested.body.partialSuccess).toEqual({
      rejectedSpans: 2,
      errorMessage: expect.stringMatching(/its resource: an attribute value nests deeper than 32 levels/),
    });
    // The resource is stored with each span: 5 MB of it is over a span's 4 MB, on each span.
    const large = await service.call('POST', '/v1/traces', {
      rawBody: gzipSync(
        JSON.stringify(withResource({ key: 'big', value: { stringValue: 'z'.repeat(5 * 1024 * 1024) } })),
      ),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(large.status).toBe(200);
    expect(large.body.partialSuccess).toEqual({
      rejectedSpans: 2,
      errorMessage: expect.stringMatching(/over the 4194304 a span may have/),
    });
    expect(await service.countItems()).toBe(items);
    expect(await service.countObjects()).toBe(objects);
  });

  it('answers 413 to an export whose resource, repeated on its spans, would store over 128 MB', async () => {
    const spans = Array.from({ length: 200 }, () => jsonSpan());
    const answer = await service.rejected('POST', '/v1/traces', {
      rawBody: gzipSync(
        JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'big', value: { stringValue: 'r'.repeat(1024 * 1024) } }] },
              scopeSpans: [{ spans }],
            },
          ],
        }),
      ),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toMatch(/smaller maxExportBatchSize/);
  }, 60_000);

  it('refuses a span whose trace state is over 1024 characters, and stores its sibling', async () => {
    const traceId = hex(32);
    const answer = await postJson(
      exportOf([
        { ...jsonSpan({ traceId }), traceState: `a=${'b'.repeat(500_000)}` },
        jsonSpan({ traceId, name: 'good' }),
      ]),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: 1,
      errorMessage: expect.stringMatching(/trace state is longer than 1024 characters/),
    });
    const trace = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(trace.body.spans.map((span: { name: string }) => span.name)).toEqual(['good']);
  });

  it('refuses ids of the wrong length and zero or far-future times, and stores the good sibling', async () => {
    const traceId = hex(32);
    const good = jsonSpan({ traceId, name: 'good' });
    const answer = await postJson(
      exportOf([
        good,
        jsonSpan({ traceId: 'abc' }),
        jsonSpan({ traceId, spanId: 'abcdef0123456789ff' }),
        jsonSpan({ traceId, start: '0', end: '0' }),
        jsonSpan({ traceId, start: `${BigInt(Date.now() + 7 * 86_400_000) * 1_000_000n}` }),
      ]),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess.rejectedSpans).toBe(4);
    expect(answer.body.partialSuccess.errorMessage).toMatch(/invalid traceId "abc"/);
    expect(answer.body.partialSuccess.errorMessage).toMatch(/invalid spanId/);
    expect(answer.body.partialSuccess.errorMessage).toMatch(/startTimeUnixNano is missing or 0/);
    expect(answer.body.partialSuccess.errorMessage).toMatch(/more than a day in the future/);
    const trace = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(trace.body.span_count).toBe(1);
    expect(trace.body.spans[0].name).toBe('good');
  });

  it('answers protobuf in kind, with the rejected count', async () => {
    const response = await fetch(`${service.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-protobuf', 'X-API-KEY': service.apiKey },
      body: protobufOf(exportOf([jsonSpan(), jsonSpan({ start: '0', end: '0' })])),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    const decoded = responseType.toObject(responseType.decode(new Uint8Array(await response.arrayBuffer())), {
      longs: Number,
    });
    expect(decoded.partialSuccess).toMatchObject({
      rejectedSpans: 1,
      errorMessage: expect.stringMatching(/0/),
    });
  });

  it('stores 10,000 spans of one export', async () => {
    const traceIds = Array.from({ length: 10 }, () => hex(32));
    const spans = Array.from({ length: 10_000 }, (_, i) => jsonSpan({ traceId: traceIds[i % 10] }));
    const answer = await service.call('POST', '/v1/traces', {
      rawBody: gzipSync(JSON.stringify(exportOf(spans))),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ partialSuccess: null });
    const trace = await service.call('GET', `/api/public/v2/traces/${traceIds[3]}`);
    expect(trace.body.span_count).toBe(1000);
  }, 120_000);
});

describe('POST /v1/traces: redelivery and tenancy', () => {
  it('stores and logs a span sent twice once', async () => {
    const traceId = hex(32);
    const request = exportOf([
      jsonSpan({ traceId, name: 'root', spanId: 'aaaaaaaaaaaaaaa1' }),
      jsonSpan({ traceId, name: 'chat', parentSpanId: 'aaaaaaaaaaaaaaa1', attributes: chatAttributes }),
    ]);
    expect((await postJson(request)).body).toEqual({ partialSuccess: null });
    const first = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    const logId = first.body.spans[0].children[0].request_log_id;
    expect(logId).toEqual(expect.any(Number));
    const items = await service.countItems();
    expect((await postJson(request)).status).toBe(200);
    expect(await service.countItems()).toBe(items);
    const second = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(second.body.span_count).toBe(2);
    expect(second.body.spans[0].children[0].request_log_id).toBe(logId);
  });

  it('another workspace cannot read the trace', async () => {
    const traceId = hex(32);
    await postJson(exportOf([jsonSpan({ traceId })]));
    const other = await service.otherWorkspaceKey('otlp-other');
    expect((await service.call('GET', `/api/public/v2/traces/${traceId}`, { key: other })).status).toBe(404);
  });
});

describe('POST /api/public/otel/v1/traces (Langfuse-compatible)', () => {
  const basic = (secret: string) => `Basic ${Buffer.from(`pk-lf-anything:${secret}`).toString('base64')}`;

  it('takes the API key as the Basic password', async () => {
    const traceId = hex(32);
    const answer = await service.call('POST', '/api/public/otel/v1/traces', {
      key: null,
      body: exportOf([jsonSpan({ traceId })]),
      headers: { Authorization: basic(service.apiKey) },
    });
    expect(answer.status).toBe(200);
    expect((await service.call('GET', `/api/public/v2/traces/${traceId}`)).status).toBe(200);
  });

  it('answers 401 to a wrong or missing key, storing nothing', async () => {
    const wrong = await service.rejected('POST', '/api/public/otel/v1/traces', {
      key: null,
      body: exportOf([jsonSpan()]),
      headers: { Authorization: basic('not-a-key') },
    });
    expect(wrong.status).toBe(401);
    const missing = await service.rejected('POST', '/api/public/otel/v1/traces', {
      key: null,
      body: exportOf([jsonSpan()]),
    });
    expect(missing.body).toMatchObject({ message: 'Missing API key' });
  });
});

describe('closing traces', () => {
  it('?close_after=true closes the batch traces: a later span is a 409 naming them, nothing stored', async () => {
    const traceId = hex(32);
    const closing = await postJson(exportOf([jsonSpan({ traceId })]), { query: { close_after: 'true' } });
    expect(closing.status).toBe(200);
    const later = await service.rejected('POST', '/v1/traces', {
      body: exportOf([jsonSpan({ traceId }), jsonSpan()]),
    });
    expect(later.status).toBe(409);
    expect(later.body).toMatchObject({ error: `Trace already closed: ${traceId}`, trace_ids: [traceId] });
    const bulk = await service.rejected('POST', '/spans-bulk', {
      body: {
        spans: [
          {
            name: 'late',
            context: { trace_id: traceId, span_id: 'ab12' },
            kind: 'SpanKind.INTERNAL',
            parent_id: null,
            start_time: nowNs(),
            end_time: nowNs(),
            status: { status_code: 'StatusCode.OK' },
            attributes: {},
          },
        ],
      },
    });
    expect(bulk.status).toBe(409);
    expect(bulk.body.trace_ids).toEqual([traceId]);
  });

  it('POST /traces/{id}/close answers the closure, the same one when closed again; others get 404', async () => {
    const traceId = hex(32);
    await postJson(exportOf([jsonSpan({ traceId })]));
    const first = await service.call('POST', `/api/public/v2/traces/${traceId}/close`);
    expect(first.status).toBe(201);
    expect(first.body.closure).toMatchObject({
      trace_id: traceId,
      status: 'closed',
      workspace_id: service.workspaceId,
    });
    const again = await service.call('POST', `/api/public/v2/traces/${traceId}/close`);
    expect(again.body.closure.id).toBe(first.body.closure.id);
    expect((await postJson(exportOf([jsonSpan({ traceId })]))).status).toBe(409);

    const open = hex(32);
    await postJson(exportOf([jsonSpan({ traceId: open })]));
    const other = await service.otherWorkspaceKey('otlp-other');
    const refused = await service.rejected('POST', `/api/public/v2/traces/${open}/close`, { key: other });
    expect(refused.status).toBe(404);
    expect((await postJson(exportOf([jsonSpan({ traceId: open })]))).status).toBe(200);
  });
});

describe('GET /api/public/v2/traces/{trace_id}/mapping', () => {
  it('explains each span: its convention, the attributes behind each field, the raw ones', async () => {
    const traceId = hex(32);
    await postJson(
      exportOf([
        jsonSpan({
          traceId,
          name: 'handler',
          spanId: 'bbbbbbbbbbbbbbb1',
          attributes: { 'http.route': '/ask' },
        }),
        jsonSpan({
          traceId,
          name: 'chat',
          parentSpanId: 'bbbbbbbbbbbbbbb1',
          attributes: { ...chatAttributes, 'custom.flag': 'on' },
        }),
      ]),
    );
    const answer = await service.call('GET', `/api/public/v2/traces/${traceId}/mapping`);
    expect(answer.status).toBe(200);
    const byName = (name: string) => answer.body.spans.find((span: { name: string }) => span.name === name);
    const [handler, chat] = [byName('handler'), byName('chat')];
    expect(handler).toMatchObject({
      name: 'handler',
      source: 'otlp',
      convention: null,
      model_call: false,
      raw_attributes: ['http.route'],
    });
    expect(chat).toMatchObject({
      name: 'chat',
      convention: 'gen_ai',
      model_call: true,
      request_log_id: expect.any(Number),
      raw_attributes: ['custom.flag'],
    });
    expect(chat.fields).toContainEqual({
      field: 'model',
      from: ['gen_ai.request.model'],
      convention: 'gen_ai',
    });
    expect(chat.fields).toContainEqual({
      field: 'tags',
      from: ['resource service.name'],
      convention: 'resource',
    });

    const other = await service.otherWorkspaceKey('otlp-other');
    expect(
      (await service.call('GET', `/api/public/v2/traces/${traceId}/mapping`, { key: other })).status,
    ).toBe(404);
  });
});

describe('GET /api/public/v2/traces/{trace_id}/mapping: why a cost is 0', () => {
  it('says a model has no price, a span has no usage, a span has no log; nothing for a priced one', async () => {
    const traceId = hex(32);
    const call = (name: string, attributes: Record<string, string | number>) =>
      jsonSpan({ traceId, name, attributes: { 'gen_ai.operation.name': 'chat', ...attributes } });
    await postJson(
      exportOf([
        call('unknown', { 'gen_ai.request.model': 'acme-llm-1', 'gen_ai.usage.input_tokens': 100 }),
        call('no usage', { 'gen_ai.request.model': 'gpt-4o-mini' }),
        call('priced', { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 100 }),
      ]),
    );
    // A 600-character service.name makes a tag over 512 characters: the log fails validation.
    const refused = await postJson({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 's'.repeat(600) } }] },
          scopeSpans: [{ spans: [call('no log', { 'gen_ai.request.model': 'gpt-4o-mini' })] }],
        },
      ],
    });
    expect(refused.body.partialSuccess.errorMessage).toMatch(/stored without its request log/);
    const answer = await service.call('GET', `/api/public/v2/traces/${traceId}/mapping`);
    const notes = Object.fromEntries(
      answer.body.spans.map((span: { name: string; notes: string[] }) => [span.name, span.notes]),
    );
    expect(notes).toEqual({
      unknown: [
        expect.stringMatching(/^cost 0: no price is known for model "acme-llm-1" of provider "unknown"/),
      ],
      'no usage': ['cost 0: the span carries no token usage'],
      priced: [],
      'no log': [expect.stringMatching(/^no request log: /)],
    });
  });
});

describe('promptlayer.* attributes', () => {
  it('link the log to the prompt version a label names; an unknown prompt logs unlinked, with a warning', async () => {
    const name = uniqueName('otlp-greeter');
    await publish(service, name, undefined, { release_labels: ['prod'] });
    await publish(service, name);
    const traceId = hex(32);
    const linked = jsonSpan({
      traceId,
      name: 'linked',
      attributes: { ...chatAttributes, 'promptlayer.prompt.name': name, 'promptlayer.prompt.label': 'prod' },
    });
    const unknown = jsonSpan({
      traceId,
      name: 'unknown',
      attributes: { ...chatAttributes, 'promptlayer.prompt.name': 'no-such-prompt' },
    });
    const answer = await postJson(exportOf([linked, unknown]));
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: 0,
      errorMessage: expect.stringMatching(/its log links no prompt/),
    });
    const trace = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    const logOf = async (spanName: string) => {
      const span = trace.body.spans.find((s: { name: string }) => s.name === spanName);
      return (await service.call('GET', `/api/public/v2/requests/${span.request_log_id}`)).body;
    };
    expect(await logOf('linked')).toMatchObject({ prompt_name: name, prompt_version_number: 1 });
    expect(await logOf('unknown')).toMatchObject({ prompt_name: null, model: 'gpt-4o-mini' });
  });
});
