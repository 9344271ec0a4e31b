import { OutboundError, outboundRequest } from '#shared/platform/outbound-http.ts';
import { PROVIDER_MAX_RESPONSE_BYTES } from './answer.ts';
import type { Credential } from './credentials.ts';
import { providerFailure } from './errors.ts';

/**
 * One JSON POST to a provider, as both adapters send it: through the guarded outbound client when the
 * base URL is a workspace's (address filter, no redirects, capped answer), through `fetch` when it is
 * the deployment's (trusted configuration). A call that got no answer (timeout, refused, network) is a
 * ProviderError here; an answer of any status is returned for the adapter to read.
 */
export interface ProviderReply {
  status: number;
  text: string;
}

export async function postToProvider(
  credential: Credential,
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<ProviderReply> {
  const provider = credential.provider;
  // Never a stream: a node waits for the whole answer.
  const payload = JSON.stringify({ ...body, stream: false });
  const allHeaders = { 'content-type': 'application/json', accept: 'application/json', ...headers };
  if (credential.guarded) {
    try {
      const answer = await outboundRequest({
        url,
        method: 'POST',
        headers: allHeaders,
        body: payload,
        timeoutMs,
        maxResponseBytes: PROVIDER_MAX_RESPONSE_BYTES,
      });
      return { status: answer.status, text: answer.body.toString('utf8') };
    } catch (error) {
      if (error instanceof OutboundError && error.code === 'timeout') {
        throw providerFailure({ provider, timedOut: true });
      }
      throw providerFailure({ provider, cause: (error as Error).message }, credential.apiKey);
    }
  }
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: allHeaders,
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw providerFailure({ provider, timedOut: true });
    throw providerFailure({ provider, cause: 'connection error' });
  }
}

/** The reply's JSON body; a non-2xx status is the provider's error, typed PROVIDER_*. */
export function replyJson(credential: Credential, reply: ProviderReply): Record<string, unknown> {
  if (reply.status < 200 || reply.status > 299) {
    throw providerFailure(
      { provider: credential.provider, status: reply.status, body: reply.text },
      credential.apiKey,
    );
  }
  try {
    const parsed: unknown = JSON.parse(reply.text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw providerFailure({ provider: credential.provider, cause: 'an answer that is not a JSON object' });
}
