/** `model_parameter_overrides`: merged into the stored parameters under the target's own names. */
import type { JsonObject as Json } from '#shared/platform/json.ts';
import type { Target } from './targets.ts';

/**
 * The parameters an override may name in any provider's spelling, and their name per target (null: the
 * target has no such parameter and the override is dropped). Every other override key is merged as
 * given, like a stored parameter: Chat Completions and Completions take it verbatim, the other targets
 * keep only the parameters they know.
 */
export const OVERRIDE_NAMES: Readonly<
  Record<string, { spellings: readonly string[]; to: Record<Target, string | null> }>
> = {
  max_tokens: {
    spellings: [
      'maxOutputTokens',
      'max_output_tokens',
      'maxTokens',
      'max_tokens',
      'max_completion_tokens',
      'maxCompletionTokens',
    ],
    to: {
      'chat-completions': 'max_completion_tokens',
      completions: 'max_tokens',
      responses: 'max_output_tokens',
      anthropic: 'max_tokens',
      gemini: 'maxOutputTokens',
    },
  },
  temperature: {
    spellings: ['temperature'],
    to: {
      'chat-completions': 'temperature',
      completions: 'temperature',
      responses: 'temperature',
      anthropic: 'temperature',
      gemini: 'temperature',
    },
  },
  top_p: {
    spellings: ['topP', 'top_p'],
    to: {
      'chat-completions': 'top_p',
      completions: 'top_p',
      responses: 'top_p',
      anthropic: 'top_p',
      gemini: 'topP',
    },
  },
  top_k: {
    spellings: ['topK', 'top_k'],
    to: { 'chat-completions': null, completions: null, responses: null, anthropic: 'top_k', gemini: 'topK' },
  },
  stop: {
    spellings: ['stop', 'stopSequences', 'stop_sequences'],
    to: {
      'chat-completions': 'stop',
      completions: 'stop',
      responses: null,
      anthropic: 'stop_sequences',
      gemini: 'stopSequences',
    },
  },
  frequency_penalty: {
    spellings: ['frequencyPenalty', 'frequency_penalty'],
    to: {
      'chat-completions': 'frequency_penalty',
      completions: 'frequency_penalty',
      responses: null,
      anthropic: null,
      gemini: 'frequencyPenalty',
    },
  },
  presence_penalty: {
    spellings: ['presencePenalty', 'presence_penalty'],
    to: {
      'chat-completions': 'presence_penalty',
      completions: 'presence_penalty',
      responses: null,
      anthropic: null,
      gemini: 'presencePenalty',
    },
  },
  seed: {
    spellings: ['seed'],
    to: { 'chat-completions': 'seed', completions: 'seed', responses: null, anthropic: null, gemini: 'seed' },
  },
};

const OVERRIDE_BY_SPELLING = new Map(
  Object.values(OVERRIDE_NAMES).flatMap((entry) =>
    entry.spellings.map((spelling) => [spelling, entry] as const),
  ),
);

/** The stored parameters with the overrides merged in; a known parameter replaces all its spellings. */
export function withOverrides(params: Json, overrides: Json | null | undefined, target: Target): Json {
  if (!overrides) return params;
  const merged: Json = { ...params };
  for (const [key, value] of Object.entries(overrides)) {
    const known = OVERRIDE_BY_SPELLING.get(key);
    if (!known) {
      merged[key] = value;
      continue;
    }
    for (const spelling of known.spellings) delete merged[spelling];
    const name = known.to[target];
    if (name) merged[name] = value;
  }
  return merged;
}
