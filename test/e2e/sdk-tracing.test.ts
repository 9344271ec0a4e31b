import { createRequire } from 'node:module';
import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceResponseSchema } from '#shared/traces/schemas.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Tracing through the official SDK: `new PromptLayer({enableTracing: true})` registers an OpenTelemetry
 * tracer provider whose exporter POSTs each ended span to /spans-bulk; the trace is then read back with
 * GET /api/public/v2/traces/{trace_id}. OpenTelemetry's provider is global to the process, so this file
 * makes one traced client.
 */
type OtelApi = typeof import('@opentelemetry/api');
type TraceBase = typeof import('@opentelemetry/sdk-trace-base');
// The SDK's own copies of the OpenTelemetry API (the one whose global provider it registered) and of
// the span processor it exports with.
const sdkRequire = createRequire(createRequire(import.meta.url).resolve('promptlayer'));
const otel = sdkRequire('@opentelemetry/api') as OtelApi;
const { SimpleSpanProcessor } = sdkRequire('@opentelemetry/sdk-trace-base') as TraceBase;

let service: TestService;
let pl: PromptLayer;

/**
 * The exporter's requests, watched at `fetch`. The SDK's exporter returns a promise from `export` instead
 * of calling OpenTelemetry's result callback, so the span processor never learns an export finished and
 * `forceFlush()` on the tracer provider never settles: the test awaits the exporter's requests instead.
 */
const exports: Promise<number>[] = [];
const exportStatuses: number[] = [];
const realFetch = globalThis.fetch;
/** Sampled spans ended so far, and the spans the exporter's requests carried: a flush waits until they match. */
let endedSpans = 0;
let sentSpans = 0;
const realOnEnd = SimpleSpanProcessor.prototype.onEnd;

beforeAll(async () => {
  service = await startTestService();
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = realFetch(input, init);
    if (String(input).endsWith('/spans-bulk')) {
      sentSpans += (JSON.parse(String(init?.body)) as { spans: unknown[] }).spans.length;
      exports.push(response.then((r) => r.status));
    }
    return response;
  }) as typeof fetch;
  SimpleSpanProcessor.prototype.onEnd = function onEnd(span) {
    if (span.spanContext().traceFlags & otel.TraceFlags.SAMPLED) endedSpans++;
    realOnEnd.call(this, span);
  };
  pl = new PromptLayer({ apiKey: service.apiKey, baseURL: service.baseUrl, enableTracing: true });
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  SimpleSpanProcessor.prototype.onEnd = realOnEnd;
  // The SDK registered a global provider; the worker's next file keeps the loaded packages.
  otel.trace.disable();
  otel.context.disable();
  otel.propagation.disable();
  await service?.stop();
});

/**
 * Every span ended so far, exported: the processor starts an export when a span ends, but the request
 * may wait on other work first (the resource's attributes, the SDK's retry wrapper), so the event loop
 * turns until every ended span is in a request, and then each request is awaited.
 */
async function flushSpans(): Promise<void> {
  while (sentSpans < endedSpans) await new Promise((resolve) => setImmediate(resolve));
  exportStatuses.push(...(await Promise.all(exports.splice(0))));
  expect(exportStatuses.every((status) => status === 201)).toBe(true);
}

const currentTraceId = () => otel.trace.getActiveSpan()!.spanContext().traceId;

describe('SDK tracing', () => {
  it('exports nested wrapWithSpan calls, read back as a tree', async () => {
    let traceId = '';
    const double = pl.wrapWithSpan('double', (x: number) => x * 2);
    const addOne = pl.wrapWithSpan('addOne', async (x: number) => x + 1);
    const pipeline = pl.wrapWithSpan('pipeline', async (x: number) => {
      traceId = currentTraceId();
      const doubled = double(x);
      return addOne(doubled);
    });

    expect(await pipeline(20)).toBe(41);
    await flushSpans();
    expect(exportStatuses.length).toBeGreaterThanOrEqual(3);

    const answer = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(answer.status).toBe(200);
    expect(traceResponseSchema.safeParse(answer.body).success).toBe(true);
    expect(answer.body).toMatchObject({ success: true, trace_id: traceId, span_count: 3, truncated: false });
    const [root] = answer.body.spans;
    expect(answer.body.spans).toHaveLength(1);
    expect(root).toMatchObject({
      name: 'pipeline',
      parent_id: null,
      kind: 'SpanKind.INTERNAL',
      status: { status_code: 'StatusCode.OK' },
      attributes: { function_input: '[20]', function_output: '41' },
      resource: { attributes: { 'service.name': 'prompt-layer-js' } },
      request_log_id: null,
    });
    expect(root.children.map((child: { name: string }) => child.name)).toEqual(['double', 'addOne']);
    expect(root.children[0]).toMatchObject({
      parent_id: root.span_id,
      attributes: { function_output: '40' },
    });
    expect(root.duration_ms).toBeGreaterThanOrEqual(root.children[1].duration_ms);
    expect(Date.parse(root.start_time)).toBeLessThanOrEqual(Date.parse(root.children[0].start_time));
    expect(BigInt(root.end_time_unix_nano) - BigInt(root.start_time_unix_nano)).toBeGreaterThan(0n);
  });

  it('records a failing span with its error status', async () => {
    let traceId = '';
    const failing = pl.wrapWithSpan('failing', async () => {
      traceId = currentTraceId();
      throw new Error('provider down');
    });

    await expect(failing()).rejects.toThrow('provider down');
    await flushSpans();

    const answer = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(answer.body.spans[0]).toMatchObject({
      name: 'failing',
      status: { status_code: 'StatusCode.ERROR', description: 'provider down' },
    });
  });

  it('links a span to the request log its function returned, as run() records it', async () => {
    let traceId = '';
    const call = pl.wrapWithSpan('llm call', async () => {
      traceId = currentTraceId();
      const logged = await pl.logRequest(logRequestBody() as any);
      return { request_id: logged!.id, raw_response: {} };
    });

    const { request_id } = await call();
    await flushSpans();

    const answer = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(answer.body.spans[0]).toMatchObject({
      name: 'llm call',
      request_log_id: request_id,
      request_log: { id: request_id, provider: 'openai', model: 'gpt-4o', status: 'SUCCESS' },
    });
  });
});
