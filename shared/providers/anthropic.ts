import type { ProviderAnswer } from './answer.ts';
import type { Credential } from './credentials.ts';
import { postToProvider, replyJson } from './transport.ts';

/**
 * Anthropic's Messages API by plain HTTP (its SDK would triple the node worker's bundle):
 * `POST <base>/v1/messages` with `x-api-key` and `anthropic-version`.
 */
export const ANTHROPIC_VERSION = '2023-06-01';

export async function callAnthropic(
  credential: Credential,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const reply = await postToProvider(
    credential,
    `${credential.baseUrl}/v1/messages`,
    { 'x-api-key': credential.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    body,
    timeoutMs,
  );
  const response = replyJson(credential, reply);
  return { text: textOf(response), response };
}

/** The text blocks of a message, joined. */
export function textOf(message: Record<string, unknown>): string {
  const content = Array.isArray(message.content) ? message.content : [];
  return content
    .filter((block): block is { type: 'text'; text: string } => block?.type === 'text')
    .map((block) => String(block.text))
    .join('');
}
