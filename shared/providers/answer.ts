/** What an adapter answers for one call. */
export interface ProviderAnswer {
  text: string;
  /** The provider's answer as JSON. */
  response: Record<string, unknown>;
}

/** The largest answer read from a workspace's base URL (through the guarded client). */
export const PROVIDER_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The OpenAI API a request body is for: `prompt` is a legacy completion, `input` a Responses call. */
export type OpenAIApi = 'chat-completions' | 'responses' | 'completions';

export function openAIApiOf(body: Record<string, unknown>): OpenAIApi {
  if ('prompt' in body && !('messages' in body)) return 'completions';
  if ('input' in body && !('messages' in body)) return 'responses';
  return 'chat-completions';
}
