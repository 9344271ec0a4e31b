import { describe, expect, it } from 'vitest';
import { logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';
import { convertTrackedCall } from '#shared/request-logs/providers/index.ts';
import {
  anthropicUsage,
  googleUsage,
  openAIChatUsage,
  openAIResponsesUsage,
} from '#shared/request-logs/providers/usage.ts';

/**
 * Each provider's usage block in the one stored meaning: input includes cache reads and writes, output
 * includes reasoning, the subsets beside them (docs/cost.md).
 */
describe('usage of each provider, in one meaning', () => {
  it('OpenAI chat: prompt_tokens already counts the cached tokens, completion_tokens the reasoning', () => {
    expect(
      openAIChatUsage({
        prompt_tokens: 1200,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 200, audio_tokens: 40 },
      }),
    ).toEqual({
      input_tokens: 1200,
      output_tokens: 300,
      cache_read_tokens: 1024,
      cache_write_tokens: 0,
      reasoning_tokens: 200,
      output_audio_tokens: 40,
    });
  });

  it('OpenAI responses: input_tokens_details and output_tokens_details are subsets', () => {
    expect(
      openAIResponsesUsage({
        input_tokens: 210,
        input_tokens_details: { cached_tokens: 128 },
        output_tokens: 64,
        output_tokens_details: { reasoning_tokens: 40 },
        total_tokens: 274,
      }),
    ).toEqual({
      input_tokens: 210,
      output_tokens: 64,
      cache_read_tokens: 128,
      cache_write_tokens: 0,
      reasoning_tokens: 40,
    });
  });

  it('Anthropic: input_tokens leaves out the cache tokens, so they are added to the input', () => {
    expect(
      anthropicUsage({
        input_tokens: 50,
        cache_creation_input_tokens: 2000,
        cache_read_input_tokens: 10_000,
        output_tokens: 500,
      }),
    ).toEqual({
      input_tokens: 12_050,
      output_tokens: 500,
      cache_read_tokens: 10_000,
      cache_write_tokens: 2000,
      reasoning_tokens: 0,
    });
  });

  it('Anthropic: the cache writes kept an hour are a subset of the writes', () => {
    expect(
      anthropicUsage({
        input_tokens: 50,
        cache_creation_input_tokens: 2000,
        cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1500 },
        output_tokens: 500,
      }),
    ).toMatchObject({ input_tokens: 2050, cache_write_tokens: 2000, cache_write_1h_tokens: 1500 });
  });

  it('refuses hour-long cache writes above the cache writes, naming the field', () => {
    const parsed = logRequestBodySchema.safeParse({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      input: { type: 'chat', messages: [] },
      output: { type: 'chat', messages: [] },
      request_start_time: '2026-01-15T10:00:00Z',
      request_end_time: '2026-01-15T10:00:01Z',
      input_tokens: 100,
      usage: { cache_write_tokens: 10, cache_write_1h_tokens: 20 },
    });
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([['usage', 'cache_write_1h_tokens']]);
  });

  it('Google: promptTokenCount counts the cached tokens; candidatesTokenCount leaves out the thoughts', () => {
    const expected = {
      input_tokens: 1000,
      output_tokens: 350,
      cache_read_tokens: 600,
      cache_write_tokens: 0,
      reasoning_tokens: 250,
      input_image_tokens: 258,
    };
    expect(
      googleUsage({
        promptTokenCount: 1000,
        cachedContentTokenCount: 600,
        candidatesTokenCount: 100,
        thoughtsTokenCount: 250,
        totalTokenCount: 1350,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 742 },
          { modality: 'IMAGE', tokenCount: 258 },
        ],
      }),
    ).toEqual(expected);
    // The Python SDK's snake_case spelling reads the same.
    expect(
      googleUsage({
        prompt_token_count: 1000,
        cached_content_token_count: 600,
        candidates_token_count: 100,
        thoughts_token_count: 250,
        prompt_tokens_details: [{ modality: 'IMAGE', token_count: 258 }],
      }),
    ).toEqual(expected);
  });

  it('a missing or odd count is 0, never NaN', () => {
    expect(openAIChatUsage(undefined)).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    });
    expect(anthropicUsage({ input_tokens: '12', output_tokens: -3 }).input_tokens).toBe(0);
  });
});

describe('/track-request conversions carry the usage', () => {
  it('an Anthropic call with cache reads logs input tokens that include them', () => {
    const converted = convertTrackedCall({
      function_name: 'anthropic.messages.create',
      kwargs: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
      request_response: {
        type: 'message',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'hello' }],
        usage: { input_tokens: 10, cache_read_input_tokens: 300_000, output_tokens: 5 },
      },
    });
    expect(converted.input_tokens).toBe(300_010);
    expect(converted.usage).toMatchObject({ input_tokens: 300_010, cache_read_tokens: 300_000 });
  });

  it('a Google generate_content call becomes blueprints with the thoughts in the output tokens', () => {
    const converted = convertTrackedCall({
      function_name: 'google.model.generate_content',
      kwargs: {
        model: 'gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }],
        system_instruction: 'Be brief.',
      },
      request_response: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Paris' }] } }],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1, thoughtsTokenCount: 30 },
        modelVersion: 'gemini-2.5-flash',
      },
    });
    expect(converted).toMatchObject({
      known: true,
      model: 'gemini-2.5-flash',
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
        ],
      },
      output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Paris' }] }] },
      input_tokens: 12,
      output_tokens: 31,
      usage: { reasoning_tokens: 30 },
    });
  });
});
