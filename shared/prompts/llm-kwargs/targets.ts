/** The request shape a provider and `api_type` call for. */
import { unrenderable } from './blueprint.ts';

export type Family = 'openai' | 'anthropic' | 'google';
export type Target = 'chat-completions' | 'completions' | 'responses' | 'anthropic' | 'gemini';

const FAMILIES = new Map<string, Family>([
  ['openai', 'openai'],
  ['azure-openai', 'openai'],
  ['openai.azure', 'openai'],
  ['anthropic', 'anthropic'],
  ['google', 'google'],
  ['gemini', 'google'],
  ['vertexai', 'google'],
]);

export const familyOf = (provider: string) => FAMILIES.get(provider.toLowerCase());

/** Whether two provider names take the same request shape (openai and azure-openai do). */
export const sameFamily = (a: string, b: string) => {
  const family = familyOf(a);
  return family !== undefined && family === familyOf(b);
};

/** The `api_type` a provider's requests take by default: Chat Completions for OpenAI's, none for others. */
export const defaultApiType = (provider: string) =>
  familyOf(provider) === 'openai' ? 'chat-completions' : null;

export function targetOf(provider: string, apiType: string | null | undefined): Target {
  const family = familyOf(provider);
  if (family === 'anthropic') return 'anthropic';
  if (family === 'google') return 'gemini';
  if (!family) {
    throw unrenderable(
      `provider "${provider}" is not supported; llm_kwargs render for ${[...FAMILIES.keys()].join(', ')}`,
    );
  }
  // The OpenAPI example spells it `chat.completions`, PromptLayer's UI `chat-completions`.
  switch (apiType?.toLowerCase().replace(/[._]/g, '-') || 'chat-completions') {
    case 'chat-completions':
      return 'chat-completions';
    case 'completions':
      return 'completions';
    case 'responses':
      return 'responses';
    default:
      throw unrenderable(
        `api_type "${apiType}" is not supported; use chat-completions, completions or responses`,
      );
  }
}
