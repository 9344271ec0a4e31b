import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmStub, startLlmStub } from '#infra/local/llm-stub.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * Arize's OpenInference instrumentation around the real `openai` SDK, calling the loopback LLM stub, its
 * spans exported as protobuf: a chat completion becomes a request log with the messages, the model and
 * the usage the provider answered.
 */
let service: TestService;
let stub: LlmStub;

beforeAll(async () => {
  [service, stub] = await Promise.all([startTestService(), startLlmStub()]);
});
afterAll(async () => {
  await Promise.all([service?.stop(), stub?.close()]);
});

describe('OpenInference (openai SDK)', () => {
  it('turns a real chat completion into a request log', async () => {
    const exporter = new OTLPTraceExporter({
      url: `${service.baseUrl}/v1/traces`,
      headers: { 'X-API-KEY': service.apiKey },
    });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
    instrumentation.manuallyInstrument(OpenAI);

    const client = new OpenAI({ apiKey: 'sk-test', baseURL: stub.openaiBaseUrl });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      temperature: 0.3,
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: '[[stub:reply=Bonjour]] Say hello in French' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Bonjour');
    await provider.forceFlush();
    await provider.shutdown();
    instrumentation.disable();

    const search = await service.call('POST', '/api/public/v2/requests/search', { body: {} });
    expect(search.status).toBe(200);
    const [item] = search.body.items;
    const log = await service.call('GET', `/api/public/v2/requests/${item.id}`);
    expect(log.body).toMatchObject({
      provider: 'openai',
      model: completion.model,
      input_tokens: completion.usage?.prompt_tokens,
      output_tokens: completion.usage?.completion_tokens,
      parameters: { temperature: 0.3 },
    });
    expect(log.body.input.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Answer briefly.' }] },
      { role: 'user', content: [{ type: 'text', text: '[[stub:reply=Bonjour]] Say hello in French' }] },
    ]);
    expect(log.body.output.messages).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
    ]);

    const mapping = await service.call('GET', `/api/public/v2/traces/${log.body.trace_id}/mapping`);
    expect(mapping.body.spans[0]).toMatchObject({ convention: 'openinference', model_call: true });
  });
});
