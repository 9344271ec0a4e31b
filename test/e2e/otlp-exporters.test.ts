import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Real OpenTelemetry exporters (protobuf and JSON, gzip on) pointed at the local service: spans written
 * in the GenAI convention become request logs, every span lands in its trace, and a redelivered export
 * stores and logs nothing twice.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

/** Export results other than success, with their error: a test fails on any. */
const failedExports: string[] = [];

/** A tracer whose every ended span is exported at once by `exporter`. */
function tracerWith(exporter: SpanExporter) {
  const watched: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) failedExports.push(String(result.error));
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(watched)] });
  return { tracer: provider.getTracer('otlp-test', '1.0.0'), provider };
}

const exporterOptions = (path = '/v1/traces') => ({
  url: `${service.baseUrl}${path}`,
  headers: { 'X-API-KEY': service.apiKey },
  compression: 'gzip' as never,
});

/** A chat span in the current GenAI convention, inside a parent `agent` span; answers the trace id. */
async function chatTrace(exporter: SpanExporter): Promise<string> {
  const { tracer, provider } = tracerWith(exporter);
  // No context manager is registered: the parent is passed explicitly.
  const root = tracer.startSpan('agent run');
  const traceId = root.spanContext().traceId;
  {
    const chat = tracer.startSpan('chat gpt-4o', {}, trace.setSpan(ROOT_CONTEXT, root));
    chat.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Paris' } }],
          finish_reason: 'tool_call',
        },
      ]),
      'user.id': 'u-42',
      'promptlayer.metadata.team': 'search',
    });
    chat.setStatus({ code: SpanStatusCode.OK });
    chat.end();
    root.end();
  }
  await provider.forceFlush();
  await provider.shutdown();
  expect(failedExports).toEqual([]);
  return traceId;
}

interface TraceSpan {
  name: string;
  request_log_id: number | null;
  children: TraceSpan[];
}

describe('OTLP exporters', () => {
  for (const [encoding, Exporter] of [
    ['protobuf', ProtoExporter],
    ['JSON', JsonExporter],
  ] as const) {
    it(`stores a ${encoding} export (gzip) as a trace whose chat span is a request log`, async () => {
      const traceId = await chatTrace(new Exporter(exporterOptions()));
      const trace = await service.call('GET', `/api/public/v2/traces/${traceId}`);
      expect(trace.status).toBe(200);
      expect(trace.body.span_count).toBe(2);
      const [root] = trace.body.spans as TraceSpan[];
      expect(root?.name).toBe('agent run');
      expect(root?.request_log_id).toBeNull();
      const chat = root?.children[0];
      expect(chat?.name).toBe('chat gpt-4o');
      expect(chat?.request_log_id).toEqual(expect.any(Number));

      const log = await service.call('GET', `/api/public/v2/requests/${chat?.request_log_id}`);
      expect(log.status).toBe(200);
      expect(log.body).toMatchObject({
        provider: 'openai',
        model: 'gpt-4o-2024-08-06',
        input_tokens: 120,
        output_tokens: 30,
        status: 'SUCCESS',
        metadata: { 'user.id': 'u-42', team: 'search' },
      });
      // The SDK's default resource names the service `unknown_service:<process>`.
      expect(log.body.tags).toEqual([expect.stringMatching(/^service\.name:unknown_service/)]);
      expect(JSON.stringify(log.body.input)).toContain('What is the weather in Paris?');
      expect(log.body.output.messages[0].tool_calls[0]).toMatchObject({
        id: 'call_1',
        function: { name: 'weather', arguments: '{"city":"Paris"}' },
      });
    });
  }
});
