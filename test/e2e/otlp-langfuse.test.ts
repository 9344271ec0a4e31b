import { LangfuseSpanProcessor } from '@langfuse/otel';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Langfuse's own span processor and exporter (`@langfuse/otel`), pointed at promptops by its base URL,
 * with the promptops key as its secret key: it posts OTLP/JSON to /api/public/otel/v1/traces with Basic
 * auth, and a `generation` observation becomes a request log with Langfuse's usage and cost.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe("Langfuse's exporter", () => {
  it('sends a generation that becomes a request log, under the span of its trace', async () => {
    const processor = new LangfuseSpanProcessor({
      publicKey: 'pk-lf-anything',
      secretKey: service.apiKey,
      baseUrl: service.baseUrl,
      exportMode: 'immediate',
      mediaUploadEnabled: false,
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('langfuse-sdk', '5.11.1');
    const root = tracer.startSpan('answer-question', {
      attributes: { 'langfuse.observation.type': 'span', 'langfuse.trace.tags': ['beta'] },
    });
    const traceId = root.spanContext().traceId;
    const generation = tracer.startSpan(
      'openai-call',
      {
        attributes: {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.model.name': 'gpt-4.1-mini',
          'langfuse.observation.input': JSON.stringify([{ role: 'user', content: 'Capital of France?' }]),
          'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Paris.' }),
          'langfuse.observation.usage_details': JSON.stringify({
            input: 8,
            input_cached_tokens: 4,
            output: 2,
          }),
          'langfuse.observation.cost_details': JSON.stringify({ total: 0.0004 }),
          'langfuse.observation.metadata.team': 'geo',
          'langfuse.trace.tags': ['beta'],
        },
      },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    generation.end();
    root.end();
    await provider.forceFlush();
    await provider.shutdown();

    const stored = await service.call('GET', `/api/public/v2/traces/${traceId}`);
    expect(stored.status).toBe(200);
    const logId = stored.body.spans[0].children[0].request_log_id;
    expect(logId).toEqual(expect.any(Number));
    const log = await service.call('GET', `/api/public/v2/requests/${logId}`);
    expect(log.body).toMatchObject({
      model: 'gpt-4.1-mini',
      input_tokens: 12,
      output_tokens: 2,
      price: 0.0004,
      metadata: { team: 'geo' },
    });
    expect(log.body.tags).toContain('beta');
    expect(log.body.output.messages).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Paris.' }] },
    ]);

    const mapping = await service.call('GET', `/api/public/v2/traces/${traceId}/mapping`);
    const generationView = mapping.body.spans.find((span: { name: string }) => span.name === 'openai-call');
    expect(generationView).toMatchObject({ convention: 'langfuse', model_call: true });
  });
});
