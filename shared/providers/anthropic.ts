import { OutboundError, outboundRequest } from '#shared/platform/outbound-http.ts';
import { PROVIDER_MAX_RESPONSE_BYTES, type ProviderAnswer } from './answer.ts';
import type { Credential } from './credentials.ts';
import { ProviderError, providerFailure } from './errors.ts';

/**
 * Anthropic's Messages API by plain HTTP (its SDK would triple the node worker's bundle):
 * `POST <base>/v1/messages` with `x-api-key` and `anthropic-version`. A workspace's base URL goes
 * through the guarded outbound client; the deployment's (trusted configuration) through `fetch`.
 */
export const ANTHROPIC_VERSION = '2023-06-01';

interface RawAnswer {
  status: number;
  text: string;
}

export async function callAnthropic(
  credential: Credential,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const url = `${credential.baseUrl}/v1/messages`;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-api-key': credential.apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
  };
  const payload = JSON.stringify({ ...body, stream: false });
  const answer = credential.guarded
    ? await guardedPost(url, headers, payload, timeoutMs)
    : await trustedPost(url, headers, payload, timeoutMs);
  if (answer.status < 200 || answer.status > 299) {
    throw providerFailure(
      { provider: 'anthropic', status: answer.status, body: answer.text },
      credential.apiKey,
    );
  }
  let response: Record<string, unknown>;
  try {
    response = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    throw new ProviderError('PROVIDER_ERROR', 'anthropic answered with a body that is not JSON', null);
  }
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

async function guardedPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<RawAnswer> {
  try {
    const answer = await outboundRequest({
      url,
      method: 'POST',
      headers,
      body,
      timeoutMs,
      maxResponseBytes: PROVIDER_MAX_RESPONSE_BYTES,
    });
    return { status: answer.status, text: answer.body.toString('utf8') };
  } catch (error) {
    if (error instanceof OutboundError && error.code === 'timeout') {
      throw providerFailure({ provider: 'anthropic', timedOut: true });
    }
    throw providerFailure({ provider: 'anthropic', cause: (error as Error).message });
  }
}

async function trustedPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<RawAnswer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw providerFailure({ provider: 'anthropic', timedOut: true });
    }
    throw providerFailure({ provider: 'anthropic', cause: 'connection error' });
  }
}
