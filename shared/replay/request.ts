import { ENV } from '#shared/platform/config.ts';
import { invalid } from '#shared/platform/errors.ts';
import {
  LlmKwargsError,
  type ModelMetadata,
  type PromptBlueprint,
} from '#shared/prompts/llm-kwargs/blueprint.ts';
import { buildLlmKwargs } from '#shared/prompts/llm-kwargs/build.ts';
import { sameFamily } from '#shared/prompts/llm-kwargs/targets.ts';
import type { RenderedTemplateView } from '#shared/prompts/rendered.ts';
import { PROVIDERS, type ProviderName, providerOf } from '#shared/providers/providers.ts';
import { without } from '#shared/request-logs/providers/blocks.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { MAX_REPLAY_MESSAGES, type ReplayOverrides } from './schemas.ts';

/**
 * The provider request a replay sends, from the original log and the overrides. Pure.
 *
 * - A /track-request log (and a workflow node's, a replay's) keeps the request as the client sent it
 *   (`provider_request`): it is sent again as it was, with only `model`, `parameters`, `tools` and
 *   `tool_choice` overrides put in place (provider names, merged field by field).
 * - A /log-request log, an edited conversation (`messages`, `prompt_template`) or another provider's
 *   family: the request is rebuilt from the blueprint, model and parameters by the prompt registry's
 *   `llm_kwargs` builder, as a template version's request is built (docs/replay.md says where this differs).
 * - A prompt version (`prompt`): its rendered `llm_kwargs` (`rendered`, made by the caller).
 * Then the bounds: messages and the max-tokens ceiling (a 422 at the field to change).
 */
export interface ReplayRequest {
  provider: ProviderName;
  body: Record<string, unknown>;
  /** `as_sent`: the logged request itself; `rebuilt`: built from a blueprint. */
  source: 'as_sent' | 'rebuilt';
}

/**
 * Fields of a logged request that are not the provider's to receive: the stream flags (a replay never
 * streams) and the SDK's client options that its `run()` leaves in `kwargs` (a provider refuses them).
 */
const NOT_SENT = [
  'stream',
  'stream_options',
  'baseURL',
  'base_url',
  'timeout',
  'max_retries',
  'maxRetries',
  'extra_headers',
  'extra_query',
  'extra_body',
];

/** The answer-length parameters of the three APIs, bounded by the ceiling. */
const MAX_TOKEN_FIELDS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/** The highest max-tokens a replay may ask for: REPLAY_MAX_TOKENS, default 32,768. */
export const DEFAULT_REPLAY_MAX_TOKENS = 32_768;
export function replayMaxTokens(): number {
  const configured = Number(process.env[ENV.replayMaxTokens]);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_REPLAY_MAX_TOKENS;
}

/** The provider a replay calls: the override's, else the original's (another one is a 422 naming it). */
export function replayProvider(original: RequestLogRecord, overrides: ReplayOverrides): ProviderName {
  if (overrides.provider) return overrides.provider;
  const provider = providerOf(original.provider);
  if (!provider) {
    throw invalid(
      ['path', 'request_id'],
      `the log's provider "${original.provider}" cannot be replayed (supported: ${PROVIDERS.join(', ')}); give provider to send it to one of them`,
    );
  }
  return provider;
}

export function replayRequest(
  original: RequestLogRecord,
  overrides: ReplayOverrides,
  rendered?: RenderedTemplateView,
): ReplayRequest {
  const request = rendered ? fromPrompt(original, rendered) : fromLog(original, overrides);
  if (overrides.tools != null) request.body.tools = overrides.tools;
  if (overrides.tool_choice != null) request.body.tool_choice = overrides.tool_choice;
  checkBounds(request.body);
  return request;
}

function fromLog(original: RequestLogRecord, overrides: ReplayOverrides): ReplayRequest {
  const provider = replayProvider(original, overrides);
  const sent = original.provider_request;
  const sameConversation = overrides.messages == null && overrides.prompt_template == null;
  if (sent && sameConversation && sameFamily(original.provider, provider)) {
    const body = without({ ...sent, ...overrides.parameters }, NOT_SENT);
    if (overrides.model) body.model = overrides.model;
    return { provider, body, source: 'as_sent' };
  }
  const blueprint = (overrides.prompt_template ??
    (overrides.messages
      ? { ...original.input, messages: overrides.messages }
      : original.input)) as PromptBlueprint;
  const model: ModelMetadata = {
    provider,
    name: overrides.model ?? original.model,
    // The conversation and the stream flags are the blueprint's and the replay's own.
    parameters: without(original.parameters, [
      'messages',
      'input',
      'instructions',
      'system',
      'prompt',
      ...NOT_SENT,
    ]),
    api_type: sameFamily(original.provider, provider) ? original.api_type : null,
  };
  try {
    return { provider, body: buildLlmKwargs(blueprint, model, overrides.parameters), source: 'rebuilt' };
  } catch (error) {
    if (!(error instanceof LlmKwargsError)) throw error;
    throw invalid(['body', overrides.prompt_template ? 'prompt_template' : 'model'], error.message);
  }
}

function fromPrompt(original: RequestLogRecord, rendered: RenderedTemplateView): ReplayRequest {
  const model = rendered.metadata?.model as ModelMetadata | undefined;
  const provider = providerOf(model?.provider);
  if (!rendered.llm_kwargs || !provider) {
    throw invalid(
      ['body', 'prompt'],
      model?.provider && !provider
        ? `the prompt's provider "${model.provider}" cannot be replayed (supported: ${PROVIDERS.join(', ')}); give provider`
        : `the prompt version has no model of its own and the log's provider "${original.provider}" cannot be called: give provider and model`,
    );
  }
  return { provider, body: without(rendered.llm_kwargs, NOT_SENT), source: 'rebuilt' };
}

function checkBounds(body: Record<string, unknown>): void {
  const conversation = [body.messages, body.input].find(Array.isArray);
  if (conversation && conversation.length > MAX_REPLAY_MESSAGES) {
    throw invalid(
      ['body', 'messages'],
      `the request has ${conversation.length} messages; a replay sends at most ${MAX_REPLAY_MESSAGES}`,
    );
  }
  const ceiling = replayMaxTokens();
  for (const field of MAX_TOKEN_FIELDS) {
    const value = body[field];
    if (typeof value === 'number' && value > ceiling) {
      throw invalid(
        ['body', 'parameters', field],
        `${value} is above the replay ceiling of ${ceiling} tokens (REPLAY_MAX_TOKENS): set a lower ${field}`,
      );
    }
  }
}
