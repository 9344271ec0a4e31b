import { describe, expect, it } from 'vitest';
import { blueprintSchema } from '#shared/blueprints/schema.ts';
import { convertTrackedCall } from '#shared/request-logs/providers/index.ts';
import { CHAT_COMPLETION_WITH_TOOL_CALL } from '#test/support/provider-payloads.ts';

/**
 * /track-request's provider conversions on payloads shaped as the providers' APIs answer them: the
 * blueprints a log keeps (valid blueprints always), tokens, model and parameters.
 */
const convert = (function_name: string, kwargs: Record<string, unknown>, request_response: unknown) => {
  const result = convertTrackedCall({ function_name, kwargs, request_response });
  expect(blueprintSchema.safeParse(result.input).success, 'input is a valid blueprint').toBe(true);
  expect(blueprintSchema.safeParse(result.output).success, 'output is a valid blueprint').toBe(true);
  return result;
};

describe('OpenAI chat completions', () => {
  const kwargs = {
    model: 'gpt-4o',
    temperature: 0.2,
    messages: [
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this image, and the weather in Paris?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'describe', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'a cat' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    tool_choice: 'auto',
    stream: false,
  };
  const response = CHAT_COMPLETION_WITH_TOOL_CALL;

  it('keeps the conversation as blueprint messages with content blocks and tool calls', () => {
    const result = convert('openai.chat.completions.create', kwargs, response);
    expect(result.input).toEqual({
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image, and the weather in Paris?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: [],
          tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'describe', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_0', content: [{ type: 'text', text: 'a cat' }] },
      ],
      tools: kwargs.tools,
    });
    expect(result.output).toMatchObject({
      type: 'chat',
      messages: [
        {
          role: 'assistant',
          content: [],
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
      ],
    });
  });

  it('reads tokens from usage, the model from the response, and keeps the other arguments as parameters', () => {
    const result = convert('openai.chat.completions.create', kwargs, response);
    expect(result).toMatchObject({
      known: true,
      model: 'gpt-4o-2024-08-06',
      api_type: 'chat-completions',
      input_tokens: 120,
      output_tokens: 18,
    });
    expect(result.parameters).toEqual({
      model: 'gpt-4o',
      temperature: 0.2,
      tools: kwargs.tools,
      tool_choice: 'auto',
      stream: false,
    });
  });

  it('takes Azure OpenAI by its function name, and a plain text answer as a text block', () => {
    const result = convert(
      'openai.AzureOpenAI.chat.completions.create',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { ...response, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' } }] },
    );
    expect(result.output).toEqual({
      type: 'chat',
      messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] }],
    });
  });

  it('logs a failed call (empty response) with the request and an empty output', () => {
    const result = convert('openai.chat.completions.create', kwargs, {});
    expect(result).toMatchObject({ model: 'gpt-4o', input_tokens: 0, output_tokens: 0 });
    expect(result.output).toEqual({ type: 'chat', messages: [] });
    expect((result.input.messages as unknown[]).length).toBe(4);
  });

  it('takes the legacy completions API as completion blueprints', () => {
    const result = convert(
      'openai.completions.create',
      { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 5 },
      {
        object: 'text_completion',
        choices: [{ text: ' hi', index: 0 }],
        usage: { prompt_tokens: 2, completion_tokens: 1 },
      },
    );
    expect(result).toMatchObject({
      input: { type: 'completion', content: [{ type: 'text', text: 'Say hi' }] },
      output: { type: 'completion', content: [{ type: 'text', text: ' hi' }] },
      parameters: { model: 'gpt-3.5-turbo-instruct', max_tokens: 5 },
      input_tokens: 2,
      output_tokens: 1,
    });
  });
});

describe('OpenAI Responses API', () => {
  const kwargs = {
    model: 'gpt-5',
    instructions: 'You are a weather bot.',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_9', output: '{"temp":21}' },
    ],
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
    reasoning: { effort: 'low', summary: 'auto' },
  };
  const response = {
    id: 'resp_1',
    object: 'response',
    created_at: 1_732_000_000,
    status: 'completed',
    model: 'gpt-5-2025-08-07',
    output: [
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'The tool said 21 degrees.' }],
      },
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [
          {
            type: 'output_text',
            text: 'It is 21°C in Paris.',
            annotations: [
              { type: 'url_citation', url: 'https://weather.example', start_index: 0, end_index: 5 },
            ],
          },
        ],
      },
      {
        type: 'function_call',
        id: 'fc_2',
        call_id: 'call_10',
        name: 'get_forecast',
        arguments: '{"days":2}',
      },
    ],
    usage: {
      input_tokens: 210,
      output_tokens: 64,
      total_tokens: 274,
      output_tokens_details: { reasoning_tokens: 40 },
    },
  };

  it('turns instructions and input items into messages', () => {
    const result = convert('openai.responses.create', kwargs, response);
    expect(result.input).toEqual({
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are a weather bot.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [],
          tool_calls: [
            {
              id: 'call_9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_9', content: [{ type: 'text', text: '{"temp":21}' }] },
      ],
      tools: kwargs.tools,
    });
  });

  it('turns output items into one assistant message: thinking, text with annotations, tool calls', () => {
    const result = convert('openai.responses.create', kwargs, response);
    expect(result.output).toEqual({
      type: 'chat',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The tool said 21 degrees.', id: 'rs_1' },
            {
              type: 'text',
              text: 'It is 21°C in Paris.',
              annotations: [
                { type: 'url_citation', url: 'https://weather.example', start_index: 0, end_index: 5 },
              ],
            },
          ],
          tool_calls: [
            { id: 'call_10', type: 'function', function: { name: 'get_forecast', arguments: '{"days":2}' } },
          ],
        },
      ],
    });
    expect(result).toMatchObject({
      model: 'gpt-5-2025-08-07',
      api_type: 'responses',
      input_tokens: 210,
      output_tokens: 64,
      parameters: { model: 'gpt-5', tools: kwargs.tools, reasoning: { effort: 'low', summary: 'auto' } },
    });
    expect(result.parameters).not.toHaveProperty('input');
    expect(result.parameters).not.toHaveProperty('instructions');
  });

  it('takes a string input as one user message', () => {
    const result = convert('openai.responses.create', { model: 'gpt-5', input: 'Hi' }, {});
    expect(result.input).toEqual({
      type: 'chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
    expect(result.output).toEqual({ type: 'chat', messages: [] });
  });
});

describe('Anthropic messages', () => {
  const kwargs = {
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    system: [{ type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } }],
    thinking: { type: 'enabled', budget_tokens: 1024 },
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I need the tool.', signature: 'EqQBCgIYAhIM' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '21°C' }],
      },
    ],
  };
  const response = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      { type: 'thinking', thinking: 'Now answer.', signature: 'EqQBCgIYAhIN' },
      { type: 'text', text: 'It is 21°C.' },
      { type: 'tool_use', id: 'toolu_02', name: 'get_forecast', input: { days: 2 } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 300,
      cache_creation_input_tokens: 50,
      cache_read_input_tokens: 20,
      output_tokens: 80,
    },
  };

  it('turns system, thinking, tool_use and tool_result blocks into blueprint messages', () => {
    const result = convert('anthropic.messages.create', kwargs, response);
    expect(result.input).toEqual({
      type: 'chat',
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking: 'I need the tool.', signature: 'EqQBCgIYAhIM' }],
          tool_calls: [
            {
              id: 'toolu_01',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01', content: [{ type: 'text', text: '21°C' }] },
      ],
      tools: kwargs.tools,
    });
    expect(result.output).toEqual({
      type: 'chat',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Now answer.', signature: 'EqQBCgIYAhIN' },
            { type: 'text', text: 'It is 21°C.' },
          ],
          tool_calls: [
            { id: 'toolu_02', type: 'function', function: { name: 'get_forecast', arguments: '{"days":2}' } },
          ],
        },
      ],
    });
  });

  it('counts cached input tokens as input, and keeps the other arguments as parameters', () => {
    const result = convert('anthropic.messages.create', kwargs, response);
    expect(result).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      api_type: null,
      input_tokens: 370,
      output_tokens: 80,
    });
    expect(result.parameters).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      thinking: kwargs.thinking,
      tools: kwargs.tools,
    });
  });

  it('logs an error (empty response) with the request and an empty output', () => {
    const result = convert('anthropic.messages.create', kwargs, {});
    expect(result.output).toEqual({ type: 'chat', messages: [] });
    expect(result.model).toBe('claude-sonnet-4-5');
  });
});

describe('other calls', () => {
  it('recognise an API by the shape of its response when the function name is unknown', () => {
    const result = convert(
      'my.wrapper.call',
      { model: 'claude-x', messages: [] },
      { type: 'message', content: [] },
    );
    expect(result).toMatchObject({ known: true, model: 'claude-x' });
  });

  it('keep a call of no known API: empty blueprints, the whole request as parameters', () => {
    const kwargs = { model: 'mistral-large', prompt_text: 'hi' };
    const result = convert('mistral.client.chat', kwargs, { outputs: ['hello'] });
    expect(result).toMatchObject({
      known: false,
      model: 'mistral-large',
      parameters: kwargs,
      input_tokens: 0,
      output_tokens: 0,
    });
  });

  it('never throw on odd values: strings, nulls and numbers where objects are expected', () => {
    const result = convert(
      'openai.chat.completions.create',
      {
        messages: [
          'plain',
          null,
          5,
          { role: 'wizard', content: [{ text: 'x' }, 'y', { type: 'text', text: 3 }] },
        ],
      },
      { choices: 'none', usage: { prompt_tokens: -1, completion_tokens: 1.5 } },
    );
    expect(result).toMatchObject({ input_tokens: 0, output_tokens: 0, model: undefined });
    expect(result.input.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'plain' }] },
      { role: 'user', content: [{ type: 'text', text: 'null' }] },
      { role: 'user', content: [{ type: 'text', text: '5' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '{"text":"x"}' },
          { type: 'text', text: 'y' },
          { type: 'text', text: '3' },
        ],
      },
    ]);
  });
});
