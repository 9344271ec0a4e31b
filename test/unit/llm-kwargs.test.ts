import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import { ANTHROPIC_DEFAULT_MAX_TOKENS } from '#shared/prompts/llm-kwargs/anthropic.ts';
import type {
  ChatBlueprint,
  CompletionBlueprint,
  ModelMetadata,
  Tool,
} from '#shared/prompts/llm-kwargs/blueprint.ts';
import { renderLlmKwargs } from '#shared/prompts/llm-kwargs/build.ts';

const cityParams = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const weatherTool: Tool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather for a city', parameters: cityParams },
};
const summarySchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

/** System + user (with an image) + assistant tool call + tool result + assistant answer + user. */
const weatherChat: ChatBlueprint = {
  type: 'chat',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are a weather assistant.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in {city}?' },
        { type: 'image_url', image_url: { url: 'https://example.com/sky.png', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: [],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      name: 'get_weather',
      content: [{ type: 'text', text: '{"temp_c":18}' }],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C in Paris.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Summarise.' }] },
  ],
  tools: [weatherTool],
  tool_choice: 'auto',
  input_variables: ['city'],
  template_format: 'f-string',
};

/** OpenAI-style parameters as the UI stores them, including keys only OpenAI understands. */
const parameters = {
  temperature: 0.2,
  max_tokens: 512,
  top_p: 0.9,
  stop: ['END'],
  seed: 7,
  logit_bias: { '50256': -100 },
  parallel_tool_calls: true,
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'summary', schema: summarySchema, strict: true },
  },
};

const model = (provider: string, name: string, extra: Partial<ModelMetadata> = {}): ModelMetadata => ({
  provider,
  name,
  parameters,
  ...extra,
});

const haiku: CompletionBlueprint = {
  type: 'completion',
  content: [
    { type: 'text', text: 'Write a haiku ' },
    { type: 'text', text: 'about {topic}.' },
  ],
  input_variables: ['topic'],
  template_format: 'f-string',
};

function errorOf(render: () => unknown): AppError {
  try {
    render();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

const withMessages = (
  messages: ChatBlueprint['messages'],
  extra: Partial<ChatBlueprint> = {},
): ChatBlueprint => ({
  type: 'chat',
  messages,
  ...extra,
});

describe('OpenAI chat completions', () => {
  it('renders the conversation as array-of-parts messages with tools and the parameters verbatim', () => {
    expect(renderLlmKwargs(weatherChat, model('openai', 'gpt-4o'))).toEqual({
      model: 'gpt-4o',
      ...parameters,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are a weather assistant.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in {city}?' },
            { type: 'image_url', image_url: { url: 'https://example.com/sky.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '{"temp_c":18}' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C in Paris.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Summarise.' }] },
      ],
      tools: [weatherTool],
      tool_choice: 'auto',
    });
  });

  it('is the default for azure and keeps names, named tool choice, developer role; drops thinking and placeholders', () => {
    const blueprint = withMessages(
      [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'placeholder', name: 'history', content: null },
        { role: 'user', name: 'alice', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'greet back', signature: 'sig' },
            { type: 'text', text: 'Hello!' },
          ],
        },
      ],
      { tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } },
    );
    expect(
      renderLlmKwargs(blueprint, { provider: 'azure-openai', name: 'gpt-4o-mini', api_type: null }),
    ).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', name: 'alice', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
      ],
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
  });

  it('reads deprecated functions and function_call as tools paired by name', () => {
    const blueprint = withMessages(
      [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: null,
          function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
        },
        { role: 'function', name: 'get_weather', content: [{ type: 'text', text: 'cold' }] },
      ],
      { functions: [weatherTool.function!], function_call: { name: 'get_weather' } },
    );
    expect(
      renderLlmKwargs(blueprint, { provider: 'openai', name: 'gpt-4o', api_type: 'chat.completions' }),
    ).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'cold' }] },
      ],
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
  });

  it('sends base64 media as a data URL image or file and leaves built-in tools and a lone tool_choice out', () => {
    const blueprint = withMessages(
      [
        {
          role: 'user',
          content: [
            {
              type: 'media',
              media: { title: 'cat.png', type: 'image/png', url: 'iVBORw0', format: 'base64' },
            },
            {
              type: 'media',
              media: { title: 'spec.pdf', type: 'application/pdf', url: 'JVBERi0', format: 'base64' },
            },
            { type: 'media_variable', name: 'attachment' },
          ],
        },
      ],
      {
        tools: [{ type: 'web_search', name: 'web_search', provider: 'openai', config: {} }],
        tool_choice: 'required',
      },
    );
    expect(renderLlmKwargs(blueprint, { provider: 'openai', name: 'gpt-4o' })).toEqual({
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0' } },
            {
              type: 'file',
              file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0' },
            },
          ],
        },
      ],
    });
  });
});

describe('OpenAI Responses API', () => {
  it('lifts the leading system message into instructions and flattens tools, tool calls and the schema', () => {
    expect(renderLlmKwargs(weatherChat, model('openai', 'gpt-4.1', { api_type: 'responses' }))).toEqual({
      model: 'gpt-4.1',
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 512,
      parallel_tool_calls: true,
      instructions: 'You are a weather assistant.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather in {city}?' },
            { type: 'input_image', image_url: 'https://example.com/sky.png', detail: 'low' },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":18}' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'It is 18°C in Paris.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Summarise.' }] },
      ],
      text: { format: { type: 'json_schema', name: 'summary', schema: summarySchema, strict: true } },
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: cityParams,
          strict: false,
        },
      ],
      tool_choice: 'auto',
    });
  });

  it('maps reasoning effort, verbosity, named tool choice and OpenAI built-in tools; keeps later system messages', () => {
    const blueprint = withMessages(
      [
        { role: 'user', content: [{ type: 'text', text: 'Find news' }] },
        { role: 'system', content: [{ type: 'text', text: 'Cite sources.' }] },
      ],
      {
        tools: [
          { type: 'function', function: { name: 'lookup', strict: true } },
          {
            type: 'web_search',
            name: 'web_search',
            provider: 'openai',
            config: { search_context_size: 'low' },
          },
          { type: 'url_context', name: 'url_context', provider: 'google', config: {} },
        ],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      },
    );
    const rendered = renderLlmKwargs(blueprint, {
      provider: 'openai',
      name: 'gpt-5',
      api_type: 'responses',
      parameters: { reasoning_effort: 'low', verbosity: 'high', max_completion_tokens: 2000, n: 2, seed: 1 },
    });
    expect(rendered).toEqual({
      model: 'gpt-5',
      max_output_tokens: 2000,
      reasoning: { effort: 'low' },
      text: { verbosity: 'high' },
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Find news' }] },
        { role: 'system', content: [{ type: 'input_text', text: 'Cite sources.' }] },
      ],
      tools: [
        { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} }, strict: true },
        { type: 'web_search', search_context_size: 'low' },
      ],
      tool_choice: { type: 'function', name: 'lookup' },
    });
  });
});

describe('Anthropic messages', () => {
  it('lifts the system prompt, maps tool calls to tool_use/tool_result and the schema to output_config', () => {
    expect(renderLlmKwargs(weatherChat, model('anthropic', 'claude-sonnet-4-5'))).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      system: 'You are a weather assistant.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in {city}?' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/sky.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_1',
              content: [{ type: 'text', text: '{"temp_c":18}' }],
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C in Paris.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Summarise.' }] },
      ],
      output_config: { format: { type: 'json_schema', schema: summarySchema } },
      tools: [{ name: 'get_weather', description: 'Current weather for a city', input_schema: cityParams }],
      tool_choice: { type: 'auto' },
    });
  });

  it.each([
    ['required', { type: 'any' }],
    ['none', { type: 'none' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { type: 'tool', name: 'get_weather' },
    ],
  ] as const)('maps tool_choice %j to %j', (toolChoice, expected) => {
    const blueprint = withMessages([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], {
      tools: [weatherTool],
      tool_choice: toolChoice,
    });
    expect(
      renderLlmKwargs(blueprint, { provider: 'anthropic', name: 'claude-haiku-4-5' }).tool_choice,
    ).toEqual(expected);
  });

  it('defaults max_tokens, merges parallel tool results, keeps signed thinking and sends base64 images', () => {
    const blueprint = withMessages(
      [
        { role: 'system', content: [{ type: 'text', text: 'Part one.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two cities.', signature: 'EqQB' },
            { type: 'thinking', thinking: 'unsigned', signature: null },
          ],
          tool_calls: [
            { id: 'a', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            { id: 'b', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'warm' }] },
        { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'cold' }] },
        { role: 'developer', content: [{ type: 'text', text: 'Part two.' }] },
      ],
      { tools: [weatherTool] },
    );
    const rendered = renderLlmKwargs(blueprint, {
      provider: 'anthropic',
      name: 'claude-opus-4-1',
      parameters: {
        parallel_tool_calls: false,
        frequency_penalty: 1,
        thinking: { type: 'enabled', budget_tokens: 512 },
      },
    });
    expect(rendered).toEqual({
      model: 'claude-opus-4-1',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      thinking: { type: 'enabled', budget_tokens: 512 },
      system: 'Part one.\n\nPart two.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two cities.', signature: 'EqQB' },
            { type: 'tool_use', id: 'a', name: 'get_weather', input: { city: 'Rome' } },
            { type: 'tool_use', id: 'b', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'warm' }] },
            { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'cold' }] },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Current weather for a city', input_schema: cityParams }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
  });

  it('carries Anthropic built-in tools with their versioned type and skips other providers’ ones', () => {
    const blueprint = withMessages([{ role: 'user', content: [{ type: 'text', text: 'News?' }] }], {
      tools: [
        { type: 'web_search', name: 'web_search', provider: 'anthropic', config: { max_uses: 3 } },
        {
          type: 'web_search',
          name: 'web_search',
          provider: 'openai',
          config: { search_context_size: 'low' },
        },
      ],
    });
    expect(renderLlmKwargs(blueprint, { provider: 'anthropic', name: 'claude-sonnet-4-5' }).tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ]);
  });

  it('is a 422 when tool call arguments are not a JSON object', () => {
    const blueprint = withMessages([
      {
        role: 'assistant',
        content: [],
        tool_calls: [{ id: 'x', function: { name: 'f', arguments: 'not json' } }],
      },
    ]);
    const error = errorOf(() =>
      renderLlmKwargs(blueprint, { provider: 'anthropic', name: 'claude-sonnet-4-5' }),
    );
    expect(error.status).toBe(422);
    expect(error.message).toContain('tool call "x"');
  });
});

describe('Google Gemini generateContent', () => {
  it('renders contents, systemInstruction, generationConfig, function declarations and toolConfig', () => {
    expect(renderLlmKwargs(weatherChat, model('google', 'gemini-2.5-flash'))).toEqual({
      model: 'gemini-2.5-flash',
      systemInstruction: { parts: [{ text: 'You are a weather assistant.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather in {city}?' },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/sky.png' } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 18 } } }] },
        { role: 'model', parts: [{ text: 'It is 18°C in Paris.' }] },
        { role: 'user', parts: [{ text: 'Summarise.' }] },
      ],
      generationConfig: {
        temperature: 0.2,
        maxOutputTokens: 512,
        topP: 0.9,
        stopSequences: ['END'],
        seed: 7,
        responseMimeType: 'application/json',
        responseJsonSchema: summarySchema,
      },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather for a city',
              parametersJsonSchema: cityParams,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
  });

  it('finds tool result names by call id, wraps plain text results, and maps a named choice to ANY', () => {
    const blueprint = withMessages(
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look', thought_signature: 'c2ln' },
            {
              type: 'media',
              media: { title: 'a.pdf', type: 'application/pdf', url: 'data:application/pdf;base64,JVB' },
            },
          ],
        },
        {
          role: 'assistant',
          content: [],
          tool_calls: [{ id: 'c9', function: { name: 'get_weather', arguments: '' } }],
        },
        { role: 'tool', tool_call_id: 'c9', content: [{ type: 'text', text: 'sunny' }] },
      ],
      {
        tools: [weatherTool, { type: 'web_search', name: 'google_search', provider: 'google', config: {} }],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      },
    );
    const rendered = renderLlmKwargs(blueprint, {
      provider: 'vertexai',
      name: 'gemini-2.5-pro',
      parameters: { response_format: { type: 'json_object' }, top_k: 40, n: 2, user: 'u1', logit_bias: {} },
    });
    expect(rendered).toEqual({
      model: 'gemini-2.5-pro',
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look', thoughtSignature: 'c2ln' },
            { inlineData: { mimeType: 'application/pdf', data: 'JVB' } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
        },
      ],
      generationConfig: { topK: 40, candidateCount: 2, responseMimeType: 'application/json' },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather for a city',
              parametersJsonSchema: cityParams,
            },
          ],
        },
        { googleSearch: {} },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    });
  });
});

describe('completion templates', () => {
  it('render as an OpenAI legacy completions request with the text blocks concatenated', () => {
    const rendered = renderLlmKwargs(haiku, {
      provider: 'openai',
      name: 'gpt-3.5-turbo-instruct',
      parameters: { temperature: 0.7, max_tokens: 64 },
    });
    expect(rendered).toEqual({
      model: 'gpt-3.5-turbo-instruct',
      temperature: 0.7,
      max_tokens: 64,
      prompt: 'Write a haiku about {topic}.',
    });
  });

  it('render as one user message for the message APIs', () => {
    const anthropic = { provider: 'anthropic', name: 'claude-haiku-4-5' };
    expect(renderLlmKwargs(haiku, anthropic)).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Write a haiku ' },
            { type: 'text', text: 'about {topic}.' },
          ],
        },
      ],
    });
    expect(renderLlmKwargs(haiku, { provider: 'gemini', name: 'gemini-2.5-flash' })).toEqual({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'Write a haiku ' }, { text: 'about {topic}.' }] }],
    });
    expect(renderLlmKwargs(haiku, { provider: 'openai', name: 'gpt-4.1', api_type: 'responses' })).toEqual({
      model: 'gpt-4.1',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Write a haiku ' },
            { type: 'input_text', text: 'about {topic}.' },
          ],
        },
      ],
    });
  });
});

describe('422 cases', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['no provider', { name: 'gpt-4o' }],
    ['no name', { provider: 'openai', name: null }],
  ])('model metadata missing (%s)', (_, metadata) => {
    const error = errorOf(() => renderLlmKwargs(weatherChat, metadata));
    expect(error).toMatchObject({
      status: 422,
      detail: [{ loc: ['query', 'include_llm_kwargs'], msg: 'the template has no model metadata' }],
    });
  });

  it('an unknown provider', () => {
    const error = errorOf(() => renderLlmKwargs(weatherChat, { provider: 'mistral', name: 'mistral-large' }));
    expect(error.status).toBe(422);
    expect(error.detail?.[0]?.msg).toMatch(/^provider "mistral" is not supported/);
  });

  it('an OpenAI api_type with no request body here, or a chat template for legacy completions', () => {
    expect(
      errorOf(() => renderLlmKwargs(weatherChat, model('openai', 'dall-e-3', { api_type: 'images' }))).status,
    ).toBe(422);
    const error = errorOf(() =>
      renderLlmKwargs(weatherChat, model('openai', 'davinci-002', { api_type: 'completions' })),
    );
    expect(error.detail?.[0]?.msg).toBe('a chat template cannot be rendered for the completions API');
  });

  it('a message role no provider knows', () => {
    const blueprint = withMessages([{ role: 'narrator', content: [{ type: 'text', text: 'Once' }] }]);
    expect(errorOf(() => renderLlmKwargs(blueprint, { provider: 'openai', name: 'gpt-4o' })).status).toBe(
      422,
    );
  });
});

describe('model_parameter_overrides', () => {
  const simple: ChatBlueprint = {
    type: 'chat',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  };
  const stored = { temperature: 0.2, max_tokens: 100, frequency_penalty: 0.5, stop: ['END'] };
  const build = (provider: string, overrides: Record<string, unknown>, api_type?: string) =>
    renderLlmKwargs(simple, { provider, name: 'm', api_type, parameters: stored }, { overrides });

  it('maps each known parameter to the provider name, replacing every stored spelling of it', () => {
    const overrides = { maxOutputTokens: 500, topP: 0.9, temperature: 1, stopSequences: ['STOP'] };
    const { messages: _m, ...openai } = build('openai', overrides);
    expect(openai).toEqual({
      model: 'm',
      temperature: 1,
      frequency_penalty: 0.5,
      stop: ['STOP'],
      max_completion_tokens: 500,
      top_p: 0.9,
    });
    const { messages: _a, ...anthropic } = build('anthropic', overrides);
    expect(anthropic).toEqual({
      model: 'm',
      temperature: 1,
      max_tokens: 500,
      top_p: 0.9,
      stop_sequences: ['STOP'],
    });
    expect(build('google', { ...overrides, top_k: 40 }).generationConfig).toEqual({
      temperature: 1,
      maxOutputTokens: 500,
      topP: 0.9,
      topK: 40,
      stopSequences: ['STOP'],
      frequencyPenalty: 0.5,
    });
    const responses = build('openai', { max_tokens: 64 }, 'responses');
    expect(responses.max_output_tokens).toBe(64);
  });

  it('drops a known parameter the provider does not have', () => {
    expect(build('openai', { topK: 5 })).not.toHaveProperty('top_k');
    expect(build('anthropic', { seed: 7 })).not.toHaveProperty('seed');
  });

  it('merges other keys as given: verbatim for Chat Completions, only known ones elsewhere', () => {
    expect(build('openai', { reasoning_effort: 'low' }).reasoning_effort).toBe('low');
    expect(build('anthropic', { reasoning_effort: 'low', top_k: 3 })).toMatchObject({ top_k: 3 });
    expect(build('anthropic', { reasoning_effort: 'low' })).not.toHaveProperty('reasoning_effort');
  });

  it('points an error at the location the caller names', () => {
    expect(() =>
      renderLlmKwargs(simple, { provider: 'mistral', name: 'm' }, { loc: ['body', 'provider'] }),
    ).toThrow(
      expect.objectContaining({
        status: 422,
        detail: [expect.objectContaining({ loc: ['body', 'provider'] })],
      }),
    );
  });
});
