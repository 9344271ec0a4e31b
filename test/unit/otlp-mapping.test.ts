import { describe, expect, it } from 'vitest';
import { mapSpan } from '#shared/otlp/mapping/index.ts';
import type { OtlpSpan } from '#shared/otlp/spans.ts';

/** One mapping per convention: the request log a span becomes, and what the explanation says. */
function span(attributes: Record<string, unknown>, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    parentSpanId: null,
    traceState: '',
    name: 'llm',
    kind: 3,
    startNs: 1_700_000_000_000_000_000n,
    endNs: 1_700_000_001_000_000_000n,
    attributes,
    events: [],
    links: [],
    status: { code: 0, message: '' },
    resource: { 'service.name': 'shop', 'deployment.environment': 'prod' },
    scope: { name: 'test', version: '1' },
    ...extra,
  };
}

describe('GenAI convention', () => {
  it('reads the deprecated usage names, the cache and reasoning subsets, and tags from the resource', () => {
    const mapping = mapSpan(
      span({
        'gen_ai.system': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-4',
        'gen_ai.usage.prompt_tokens': 500,
        'gen_ai.usage.completion_tokens': 80,
        'gen_ai.usage.cache_read.input_tokens': 300,
        'gen_ai.usage.cache_creation.input_tokens': 100,
        'gen_ai.usage.reasoning.output_tokens': 50,
        'http.url': 'https://api.anthropic.com',
      }),
    );
    expect(mapping).toMatchObject({ convention: 'gen_ai', model_call: true, raw_attributes: ['http.url'] });
    expect(mapping.call).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4',
      usage: {
        input_tokens: 500,
        output_tokens: 80,
        cache_read_tokens: 300,
        cache_write_tokens: 100,
        reasoning_tokens: 50,
      },
      tags: ['service.name:shop', 'deployment.environment:prod'],
    });
    expect(mapping.fields).toContainEqual({
      field: 'usage.input_tokens',
      from: ['gen_ai.usage.prompt_tokens'],
      convention: 'gen_ai',
    });
  });

  it('reads the older per-message events and gen_ai.choice', () => {
    const mapping = mapSpan(
      span(
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        {
          events: [
            { name: 'gen_ai.system.message', time_unix_nano: '1', attributes: { content: 'Be brief.' } },
            { name: 'gen_ai.user.message', time_unix_nano: '2', attributes: { content: 'Hi' } },
            {
              name: 'gen_ai.choice',
              time_unix_nano: '3',
              attributes: { message: '{"content":"Hello"}', index: 0 },
            },
          ],
        },
      ),
    );
    expect(mapping.call?.input).toEqual({
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
    });
    expect(mapping.call?.output).toEqual({
      type: 'chat',
      messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('reads OpenLLMetry-style gen_ai.prompt.N attributes, a tool result among them', () => {
    const mapping = mapSpan(
      span({
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Weather?',
        'gen_ai.prompt.1.role': 'tool',
        'gen_ai.prompt.1.content': '18C',
        'gen_ai.prompt.1.tool_call_id': 'call_9',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'It is 18C.',
      }),
    );
    expect(mapping.call?.input.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'tool', tool_call_id: 'call_9', content: [{ type: 'text', text: '18C' }] },
    ]);
    expect(mapping.fields.find((f) => f.field === 'input')?.from).toHaveLength(5);
  });

  it('keeps inline images out of the log as references', () => {
    const image = 'A'.repeat(2_000_000);
    const mapping = mapSpan(
      span({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.input.messages': JSON.stringify([
          {
            role: 'user',
            parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png', content: image }],
          },
        ]),
      }),
    );
    expect(mapping.call?.input.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'media',
            media: { mime_type: 'image/png', omitted_base64_chars: 2_000_000, in: 'span attributes' },
          },
        ],
      },
    ]);
  });

  it('never logs the agent spans of @ai-sdk/otel, whose usage repeats their chat children', () => {
    for (const name of ['invoke_agent weather', 'agent_step 1']) {
      const mapping = mapSpan(
        span({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 100 }, { name }),
      );
      expect(mapping.model_call).toBe(false);
      expect(mapping.reason).toMatch(/wraps model calls/);
    }
    const chat = mapSpan(
      span({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' }, { name: 'chat gpt-4o' }),
    );
    expect(chat.model_call).toBe(true);
  });

  it('marks a failed span as an ERROR log with the status message', () => {
    const mapping = mapSpan(
      span(
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        { status: { code: 2, message: 'rate limited' } },
      ),
    );
    expect(mapping.call).toMatchObject({ status: 'ERROR', error_message: 'rate limited' });
  });
});

describe('OpenInference convention', () => {
  it('reads flattened messages with tool calls, token details and the cost', () => {
    const mapping = mapSpan(
      span({
        'openinference.span.kind': 'LLM',
        'llm.provider': 'openai',
        'llm.model_name': 'gpt-4o-mini',
        'llm.invocation_parameters': '{"model":"gpt-4o-mini","temperature":0.5}',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'You help.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.contents.0.message_content.type': 'text',
        'llm.input_messages.1.message.contents.0.message_content.text': 'Look:',
        'llm.input_messages.1.message.contents.1.message_content.type': 'image',
        'llm.input_messages.1.message.contents.1.message_content.image.image.url': 'https://x/cat.png',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'describe',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"what":"cat"}',
        'llm.token_count.prompt': 1000,
        'llm.token_count.completion': 200,
        'llm.token_count.prompt_details.cache_read': 600,
        'llm.token_count.prompt_details.cache_write': 100,
        'llm.token_count.completion_details.reasoning': 150,
        'llm.cost.total': 0.0123,
        'session.id': 's-1',
        'input.value': 'ignored: messages win',
      }),
    );
    expect(mapping.convention).toBe('openinference');
    expect(mapping.call).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      parameters: { temperature: 0.5 },
      usage: {
        input_tokens: 1000,
        output_tokens: 200,
        cache_read_tokens: 600,
        cache_write_tokens: 100,
        reasoning_tokens: 150,
      },
      cost: 0.0123,
      metadata: { 'session.id': 's-1' },
    });
    expect(mapping.call?.input.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You help.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'https://x/cat.png' } },
        ],
      },
    ]);
    expect(mapping.call?.output.messages).toEqual([
      {
        role: 'assistant',
        content: [],
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'describe', arguments: '{"what":"cat"}' } },
        ],
      },
    ]);
  });

  it('a CHAIN span is not a model call', () => {
    expect(mapSpan(span({ 'openinference.span.kind': 'CHAIN', 'llm.token_count.prompt': 5 }))).toMatchObject({
      convention: 'openinference',
      model_call: false,
      reason: 'openinference.span.kind is CHAIN, not LLM',
    });
  });
});

describe('Vercel AI SDK (ai.*)', () => {
  const usage = { 'ai.usage.inputTokens': 50, 'ai.usage.outputTokens': 10, 'ai.usage.cachedInputTokens': 20 };

  it('logs the doGenerate span, with its tool call and result, and not the generateText wrapper', () => {
    const wrapper = mapSpan(span({ 'ai.operationId': 'ai.generateText', 'ai.model.id': 'gpt-4o', ...usage }));
    expect(wrapper.model_call).toBe(false);
    const call = mapSpan(
      span({
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.provider': 'openai.chat',
        'ai.model.id': 'gpt-4o',
        'ai.settings.maxRetries': 2,
        'ai.settings.temperature': 0,
        'ai.prompt.messages': JSON.stringify([
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } }],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 't1',
                toolName: 'weather',
                output: { type: 'json', value: 3 },
              },
            ],
          },
        ]),
        'ai.response.text': 'It is 3 degrees.',
        'ai.telemetry.metadata.customer': 'acme',
        'gen_ai.system': 'openai.chat',
        ...usage,
      }),
    );
    expect(call.convention).toBe('vercel_ai');
    expect(call.call).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      parameters: { temperature: 0 },
      usage: { input_tokens: 50, output_tokens: 10, cache_read_tokens: 20 },
      metadata: { customer: 'acme' },
    });
    expect(call.call?.input.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [],
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      // The tool's own answer, without the AI SDK's `{type: 'json', value}` wrapper.
      { role: 'tool', tool_call_id: 't1', content: [{ type: 'text', text: '3' }] },
    ]);
    expect(call.fields).toContainEqual({
      field: 'provider',
      from: ['ai.model.provider'],
      convention: 'vercel_ai',
    });
  });
});

describe('Vercel AI SDK token details (ai 6, LegacyOpenTelemetry in ai 7)', () => {
  it('reads cache writes (and the detail forms of reads and reasoning), so they are priced at their rates', () => {
    const mapping = mapSpan(
      span({
        'ai.operationId': 'ai.streamText.doStream',
        'ai.model.provider': 'anthropic.messages',
        'ai.model.id': 'claude-sonnet-4-5',
        'ai.usage.inputTokens': 1000,
        'ai.usage.outputTokens': 300,
        'ai.usage.inputTokenDetails.noCacheTokens': 100,
        'ai.usage.inputTokenDetails.cacheReadTokens': 600,
        'ai.usage.inputTokenDetails.cacheWriteTokens': 300,
        'ai.usage.outputTokenDetails.reasoningTokens': 120,
      }),
    );
    expect(mapping.call?.usage).toEqual({
      input_tokens: 1000,
      output_tokens: 300,
      cache_read_tokens: 600,
      cache_write_tokens: 300,
      reasoning_tokens: 120,
    });
  });
});

describe('Langfuse and PromptLayer attributes', () => {
  it('maps a generation, adding the cached tokens to the input total, and links a prompt', () => {
    const mapping = mapSpan(
      span({
        'langfuse.observation.type': 'generation',
        'langfuse.observation.model.name': 'gpt-4.1',
        'langfuse.observation.input': '[{"role":"user","content":"Hi"}]',
        'langfuse.observation.output': '{"role":"assistant","content":"Hello"}',
        'langfuse.observation.usage_details': '{"input":10,"input_cached_tokens":90,"output":5}',
        'langfuse.observation.cost_details': '{"total":0.5}',
        'langfuse.observation.metadata.tier': 'gold',
        'promptlayer.prompt.name': 'greeter',
        'promptlayer.prompt.label': 'prod',
        'gen_ai.conversation.id': 'conv-7',
      }),
    );
    expect(mapping.convention).toBe('langfuse');
    expect(mapping.call).toMatchObject({
      model: 'gpt-4.1',
      usage: { input_tokens: 100, cache_read_tokens: 90, output_tokens: 5 },
      cost: 0.5,
      prompt: { name: 'greeter', label: 'prod' },
      metadata: { tier: 'gold', 'gen_ai.conversation.id': 'conv-7' },
    });
    expect(mapping.call?.output.messages).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
    ]);
  });

  it('a span of no known convention is a plain span with every attribute raw', () => {
    expect(mapSpan(span({ 'http.method': 'GET' }))).toMatchObject({
      convention: null,
      model_call: false,
      raw_attributes: ['http.method'],
    });
  });
});

describe('hostile attribute names', () => {
  it('a flattened name through __proto__ changes no prototype, and the other messages still map', () => {
    const mapping = mapSpan(
      span({
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.__proto__.polluted': 'yes',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'hi',
        'gen_ai.prompt.__proto__.polluted': 'yes',
      }),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(mapping.call?.input).toMatchObject({ messages: [{ role: 'user' }] });
    expect(JSON.stringify(mapping.call?.input)).toContain('hi');
  });
});
