import { createOpenAI } from '@ai-sdk/openai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The Vercel AI SDK 7 (`ai`, `@ai-sdk/openai` against the LLM stub) traced by `@ai-sdk/otel`: its
 * `OpenTelemetry` integration (gen_ai spans invoke_agent -> agent_step -> chat) and `LegacyOpenTelemetry`
 * (the `ai.*` spans of v6). Either way one generation is one request log: the wrapper spans, which
 * repeat the usage, are stored as spans only.
 */
let service: TestService;
let stub: LlmStub;

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
});
afterAll(async () => {
  await Promise.all([service?.stop(), stub?.close()]);
});

async function generateTraced(integration: 'current' | 'legacy', prompt: string) {
  const exporter = new OTLPTraceExporter({
    url: `${service.baseUrl}/v1/traces`,
    headers: { 'X-API-KEY': service.apiKey },
  });
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('ai');
  const telemetry =
    integration === 'current' ? new OpenTelemetry({ tracer }) : new LegacyOpenTelemetry({ tracer });
  const openai = createOpenAI({ apiKey: 'sk-test', baseURL: stub.openaiBaseUrl });
  const result = await generateText({
    model: openai.chat('gpt-4o-mini'),
    prompt,
    temperature: 0,
    telemetry: { integrations: [telemetry], functionId: 'greeter' },
  });
  await provider.forceFlush();
  await provider.shutdown();
  return result;
}

/** The logs this test's generation made (the search answers newest first). */
async function logsSince(before: number) {
  const search = await service.call('POST', '/api/public/v2/requests/search', { body: {} });
  return (search.body.items as { id: number }[]).filter((item) => item.id > before);
}

async function lastLogId(): Promise<number> {
  const search = await service.call('POST', '/api/public/v2/requests/search', { body: {} });
  return (search.body.items as { id: number }[])[0]?.id ?? 0;
}

describe('Vercel AI SDK 7', () => {
  for (const integration of ['current', 'legacy'] as const) {
    it(`${integration === 'current' ? 'OpenTelemetry (gen_ai)' : 'LegacyOpenTelemetry (ai.*)'}: one generation, one request log`, async () => {
      const before = await lastLogId();
      const result = await generateTraced(integration, `[[stub:reply=Hi ${integration}]] greet me`);
      expect(result.text).toBe(`Hi ${integration}`);
      const logs = await logsSince(before);
      expect(logs).toHaveLength(1);
      const log = await service.call('GET', `/api/public/v2/requests/${logs[0]!.id}`);
      expect(log.body).toMatchObject({
        provider: 'openai',
        input_tokens: result.usage.inputTokens,
        output_tokens: result.usage.outputTokens,
      });
      expect(log.body.model).toMatch(/gpt-4o-mini/);
      expect(JSON.stringify(log.body.input)).toContain('greet me');
      expect(JSON.stringify(log.body.output)).toContain(`Hi ${integration}`);

      const mapping = await service.call('GET', `/api/public/v2/traces/${log.body.trace_id}/mapping`);
      const spans = mapping.body.spans as { name: string; model_call: boolean; convention: string }[];
      const calls = Object.fromEntries(spans.map((span) => [span.name, span.model_call]));
      expect(calls).toEqual(
        integration === 'current'
          ? { 'invoke_agent gpt-4o-mini': false, 'step 1': false, 'chat gpt-4o-mini': true }
          : { 'ai.generateText': false, 'ai.generateText.doGenerate': true },
      );
    });
  }
});
