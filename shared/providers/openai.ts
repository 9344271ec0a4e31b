import OpenAI from 'openai';
import { OutboundError } from '#shared/platform/outbound-http.ts';
import { openAIApiOf, PROVIDER_MAX_RESPONSE_BYTES, type ProviderAnswer } from './answer.ts';
import type { Credential } from './credentials.ts';
import { ProviderError, providerFailure, redact } from './errors.ts';
import { guardedFetch } from './guarded-fetch.ts';

/**
 * OpenAI through its SDK: Chat Completions, Responses or legacy Completions, by the request body's shape
 * (what `llm_kwargs` built). No retries (the node's attempt is the retry unit) and our own timeout; a
 * workspace's base URL goes through the guarded client by way of the SDK's `fetch` option.
 */
export async function callOpenAI(
  credential: Credential,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const client = new OpenAI({
    apiKey: credential.apiKey,
    baseURL: credential.baseUrl,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
    ...(credential.guarded
      ? { fetch: guardedFetch({ timeoutMs, maxResponseBytes: PROVIDER_MAX_RESPONSE_BYTES }) }
      : {}),
  });
  // Never a stream: a node waits for the whole answer.
  const request = { ...body, stream: false } as never;
  try {
    switch (openAIApiOf(body)) {
      case 'completions': {
        const response = await client.completions.create(request);
        const completion = response as unknown as { choices?: { text?: string }[] };
        return { text: completion.choices?.[0]?.text ?? '', response: toJson(response) };
      }
      case 'responses': {
        const response = await client.responses.create(request);
        return {
          text: (response as unknown as { output_text?: string }).output_text ?? '',
          response: toJson(response),
        };
      }
      case 'chat-completions': {
        const response = await client.chat.completions.create(request);
        const chat = response as unknown as { choices?: { message?: { content?: unknown } }[] };
        const content = chat.choices?.[0]?.message?.content;
        return { text: typeof content === 'string' ? content : '', response: toJson(response) };
      }
    }
  } catch (error) {
    throw fromSdkError(error, credential.apiKey);
  }
}

/** The SDK's errors as ProviderErrors. */
export function fromSdkError(error: unknown, secret: string): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return providerFailure({ provider: 'openai', timedOut: true }, secret);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OutboundError) {
      if (cause.code === 'timeout') return providerFailure({ provider: 'openai', timedOut: true }, secret);
      return providerFailure({ provider: 'openai', cause: cause.message }, secret);
    }
    return providerFailure({ provider: 'openai', cause: 'connection error' }, secret);
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const body =
      error.error !== undefined && error.error !== null
        ? JSON.stringify({ error: error.error })
        : error.message.replace(/^\d{3} /, '');
    return providerFailure({ provider: 'openai', status: error.status, body }, secret);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('PROVIDER_ERROR', `openai call failed: ${redact(message, secret).slice(0, 500)}`);
}

function toJson(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
