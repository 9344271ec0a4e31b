import { ENV } from '#shared/platform/config.ts';
import { type OpenAIApi, openAIApiOf } from './answer.ts';
import { callAnthropic } from './anthropic.ts';
import { resolveCredential } from './credentials.ts';
import { ProviderError } from './errors.ts';
import { callOpenAI } from './openai.ts';
import { DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderName } from './providers.ts';

export { DEFAULT_PROVIDER_TIMEOUT_MS };

/**
 * The LLM port of PROMPT_TEMPLATE and LLM_ASSERTION nodes (and report columns): one provider request,
 * already in the provider's shape (a template's `llm_kwargs`), sent with the workspace's key or the
 * deployment's (credentials.ts) through the provider's adapter, bounded by the caller's deadline. It
 * answers the text and the provider's JSON answer, or throws a ProviderError (typed PROVIDER_*).
 */
export type LlmApi = OpenAIApi | 'messages';

export interface LlmRequest {
  provider: ProviderName;
  /** The provider request body (model, messages, parameters...). */
  body: Record<string, unknown>;
  /** Epoch ms after which the caller gives up: the call's timeout ends before it. */
  deadline: number;
}

export interface LlmResult {
  text: string;
  response: Record<string, unknown>;
  /** The API the body went to. */
  api: LlmApi;
  /** Whose key was used. */
  source: 'workspace' | 'deployment';
}

export interface LlmPort {
  complete(workspaceId: number, request: LlmRequest): Promise<LlmResult>;
}

/** Kept between the call's timeout and the caller's deadline, for recording the outcome. */
export const DEADLINE_MARGIN_MS = 1_000;

/** The SDK function a call of each API is logged under (what /track-request receives from the SDK). */
export const LLM_FUNCTION_NAMES: Readonly<Record<LlmApi, string>> = {
  'chat-completions': 'openai.chat.completions.create',
  responses: 'openai.responses.create',
  completions: 'openai.completions.create',
  messages: 'anthropic.messages.create',
};

export const apiOf = (provider: ProviderName, body: Record<string, unknown>): LlmApi =>
  provider === 'anthropic' ? 'messages' : openAIApiOf(body);

/** The call's timeout: PROVIDER_TIMEOUT_MS (default 120 s), ending at least a second before the deadline. */
export function callTimeoutMs(deadline: number, now = Date.now()): number {
  const configured = Number(process.env[ENV.providerTimeoutMs]);
  const ceiling = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_PROVIDER_TIMEOUT_MS;
  return Math.min(ceiling, deadline - now - DEADLINE_MARGIN_MS);
}

export const llmPort: LlmPort = {
  async complete(workspaceId, request) {
    const timeoutMs = callTimeoutMs(request.deadline);
    if (timeoutMs <= 0) {
      throw new ProviderError(
        'PROVIDER_TIMEOUT',
        `no time left before the node's deadline to call ${request.provider}`,
      );
    }
    const credential = await resolveCredential(workspaceId, request.provider);
    const answer =
      request.provider === 'anthropic'
        ? await callAnthropic(credential, request.body, timeoutMs)
        : await callOpenAI(credential, request.body, timeoutMs);
    return { ...answer, api: apiOf(request.provider, request.body), source: credential.source };
  },
};
