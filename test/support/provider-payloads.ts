/**
 * Provider answers shaped as the providers' APIs send them, for the /track-request conversion tests and
 * the stub provider the SDK's wrappers call in end-to-end tests.
 */

/** OpenAI Chat Completions: one choice calling the `get_weather` tool; 120 prompt and 18 completion tokens. */
export const CHAT_COMPLETION_WITH_TOOL_CALL = {
  id: 'chatcmpl-AbC',
  object: 'chat.completion',
  created: 1_732_000_000,
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        annotations: [],
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: {
    prompt_tokens: 120,
    completion_tokens: 18,
    total_tokens: 138,
    prompt_tokens_details: { cached_tokens: 0 },
  },
  system_fingerprint: 'fp_1',
};
