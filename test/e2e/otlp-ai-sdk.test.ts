import { createOpenAI } from '@ai-sdk/openai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
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

/** A tool the model calls once (the stub's `[[stub:tool=...]]`) before it answers in a second step. */
const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: 'sunny' }),
});

async function generateTraced(integration: 'current' | 'legacy', prompt: string, withTool = false) {
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
    ...(withTool ? { tools: { weather }, stopWhen: stepCountIs(2) } : {}),
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

  for (const integration of ['current', 'legacy'] as const) {
    it(`${integration === 'current' ? 'OpenTelemetry (gen_ai)' : 'LegacyOpenTelemetry (ai.*)'}: a tool call, one request log per model call, cost counted once`, async () => {
      const before = await lastLogId();
      const result = await generateTraced(
        integration,
        `[[stub:tool=weather {"city":"Paris"}]][[stub:reply=Sunny in Paris]] weather in Paris?`,
        true,
      );
      expect(result.text).toBe('Sunny in Paris');
      expect(result.steps).toHaveLength(2);

      const ids = (await logsSince(before)).map((item) => item.id).reverse();
      expect(ids).toHaveLength(2);
      const [first, second] = await Promise.all(
        ids.map(async (id) => (await service.call('GET', `/api/public/v2/requests/${id}`)).body),
      );
      const call = {
        role: 'assistant',
        content: [],
        tool_calls: [
          { id: 'call_stub', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
        ],
      };
      expect(first.output.messages).toEqual([call]);
      expect(second.input.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: expect.stringContaining('weather in Paris?') }] },
        call,
        {
          role: 'tool',
          tool_call_id: 'call_stub',
          content: [{ type: 'text', text: '{"city":"Paris","forecast":"sunny"}' }],
        },
      ]);
      expect(second.output.messages).toEqual([
        { role: 'assistant', content: [{ type: 'text', text: 'Sunny in Paris' }] },
      ]);
      // Each log is priced from its own call's usage (gpt-4o-mini: $0.15 in, $0.60 out per million).
      for (const [index, log] of [first, second].entries()) {
        const usage = result.steps[index]!.usage;
        expect(log).toMatchObject({ input_tokens: usage.inputTokens, output_tokens: usage.outputTokens });
        expect(log.price).toBeCloseTo(
          ((usage.inputTokens ?? 0) * 0.15 + (usage.outputTokens ?? 0) * 0.6) / 1e6,
          12,
        );
      }
      expect(first.trace_id).toBe(second.trace_id);

      const trace = await service.call('GET', `/api/public/v2/traces/${first.trace_id}`);
      type Span = {
        name: string;
        request_log_id: number | null;
        request_log: { price: number } | null;
        children: Span[];
      };
      const spans: Span[] = [];
      const walk = (span: Span) => {
        spans.push(span);
        span.children.forEach(walk);
      };
      (trace.body.spans as Span[]).forEach(walk);
      const logged = spans.filter((span) => span.request_log_id !== null);
      expect(logged.map((span) => span.request_log_id).sort()).toEqual([...ids].sort());
      const totalCost = logged.reduce((sum, span) => sum + (span.request_log?.price ?? 0), 0);
      expect(totalCost).toBeCloseTo(first.price + second.price, 12);
      const wrappers = spans.filter((span) => span.request_log_id === null).map((span) => span.name);
      expect(wrappers.sort()).toEqual([...WRAPPER_SPANS[integration]].sort());
    });
  }
});

/** The agent, step and tool spans each integration wraps the two model calls in: spans, never logs. */
const WRAPPER_SPANS: Record<'current' | 'legacy', string[]> = {
  current: ['invoke_agent gpt-4o-mini', 'step 1', 'step 2', 'execute_tool weather'],
  legacy: ['ai.generateText', 'ai.toolCall'],
};
