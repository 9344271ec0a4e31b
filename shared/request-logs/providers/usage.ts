import type { Usage } from '../record.ts';
import { asArray, isObject, type Json, tokenCount } from './blocks.ts';

/**
 * Each provider's usage block in the one meaning a log stores (DESIGN.md 13, docs/cost.md): input tokens
 * include the cache reads and cache writes, output tokens include the reasoning tokens, the subsets
 * beside them. Pure; a missing or odd count is 0. The OTLP ingestion reads the same blocks through these.
 */
const field = (object: unknown, name: string): unknown => (isObject(object) ? object[name] : undefined);

/** Only the subsets a provider reported: audio and image counts are left out when absent. */
function usage(counts: Usage): Usage {
  const { cache_write_1h_tokens, input_audio_tokens, output_audio_tokens, input_image_tokens, ...required } =
    counts;
  return {
    ...required,
    ...(cache_write_1h_tokens ? { cache_write_1h_tokens } : {}),
    ...(input_audio_tokens ? { input_audio_tokens } : {}),
    ...(output_audio_tokens ? { output_audio_tokens } : {}),
    ...(input_image_tokens ? { input_image_tokens } : {}),
  };
}

/**
 * OpenAI Chat Completions (and legacy Completions): `prompt_tokens` already counts the cached tokens
 * (`prompt_tokens_details.cached_tokens`), `completion_tokens` the reasoning ones
 * (`completion_tokens_details.reasoning_tokens`).
 */
export function openAIChatUsage(block: unknown): Usage {
  const prompt = field(block, 'prompt_tokens_details');
  const completion = field(block, 'completion_tokens_details');
  return usage({
    input_tokens: tokenCount(field(block, 'prompt_tokens')),
    output_tokens: tokenCount(field(block, 'completion_tokens')),
    cache_read_tokens: tokenCount(field(prompt, 'cached_tokens')),
    cache_write_tokens: 0,
    reasoning_tokens: tokenCount(field(completion, 'reasoning_tokens')),
    input_audio_tokens: tokenCount(field(prompt, 'audio_tokens')),
    output_audio_tokens: tokenCount(field(completion, 'audio_tokens')),
    input_image_tokens: tokenCount(field(prompt, 'image_tokens')),
  });
}

/** OpenAI Responses: `input_tokens` counts `input_tokens_details.cached_tokens`, `output_tokens` the reasoning. */
export function openAIResponsesUsage(block: unknown): Usage {
  const input = field(block, 'input_tokens_details');
  const output = field(block, 'output_tokens_details');
  return usage({
    input_tokens: tokenCount(field(block, 'input_tokens')),
    output_tokens: tokenCount(field(block, 'output_tokens')),
    cache_read_tokens: tokenCount(field(input, 'cached_tokens')),
    cache_write_tokens: 0,
    reasoning_tokens: tokenCount(field(output, 'reasoning_tokens')),
    input_audio_tokens: tokenCount(field(input, 'audio_tokens')),
    output_audio_tokens: tokenCount(field(output, 'audio_tokens')),
    input_image_tokens: tokenCount(field(input, 'image_tokens')),
  });
}

/**
 * Anthropic Messages: `input_tokens` EXCLUDES the tokens read from and written to the cache
 * (`cache_read_input_tokens`, `cache_creation_input_tokens`), so they are added to make the input total.
 * Thinking is counted in `output_tokens`; a separate count, where present, is its subset. The cache writes
 * kept an hour (`cache_creation.ephemeral_1h_input_tokens`) are a subset of the writes, at a higher price.
 */
export function anthropicUsage(block: unknown): Usage {
  const cacheRead = tokenCount(field(block, 'cache_read_input_tokens'));
  const cacheWrite = tokenCount(field(block, 'cache_creation_input_tokens'));
  return usage({
    input_tokens: tokenCount(field(block, 'input_tokens')) + cacheRead + cacheWrite,
    output_tokens: tokenCount(field(block, 'output_tokens')),
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: tokenCount(field(field(block, 'output_tokens_details'), 'thinking_tokens')),
    cache_write_1h_tokens: tokenCount(field(field(block, 'cache_creation'), 'ephemeral_1h_input_tokens')),
  });
}

/**
 * Google Gemini (`usageMetadata`, or `usage_metadata` with snake_case names from the Python SDK):
 * `promptTokenCount` already counts `cachedContentTokenCount`; `candidatesTokenCount` EXCLUDES
 * `thoughtsTokenCount`, so the thoughts are added to make the output total; tokens of tool-use prompts
 * (`toolUsePromptTokenCount`) are input too. Audio and image counts come from the per-modality details.
 */
export function googleUsage(block: unknown): Usage {
  const count = (camel: string) => tokenCount(field(block, camel) ?? field(block, snake(camel)));
  const modality = (camel: string, kind: string) =>
    tokenCount(
      ...asArray(field(block, camel) ?? field(block, snake(camel)))
        .filter((detail) => String(field(detail, 'modality')).toUpperCase() === kind)
        .map((detail) => field(detail, 'tokenCount') ?? field(detail, 'token_count')),
    );
  const thoughts = count('thoughtsTokenCount');
  return usage({
    input_tokens: count('promptTokenCount') + count('toolUsePromptTokenCount'),
    output_tokens: count('candidatesTokenCount') + thoughts,
    cache_read_tokens: count('cachedContentTokenCount'),
    cache_write_tokens: 0,
    reasoning_tokens: thoughts,
    input_audio_tokens: modality('promptTokensDetails', 'AUDIO'),
    output_audio_tokens: modality('candidatesTokensDetails', 'AUDIO'),
    input_image_tokens: modality('promptTokensDetails', 'IMAGE'),
  });
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Google's usage block of a response, under either spelling. */
export const googleUsageBlock = (response: Json): unknown =>
  response.usageMetadata ?? response.usage_metadata;

/** No usage reported. */
export const NO_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
};
