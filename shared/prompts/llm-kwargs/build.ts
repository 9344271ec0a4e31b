/**
 * `llm_kwargs` of GET /prompt-templates/{identifier}?include_llm_kwargs=true: a stored blueprint and its
 * model metadata turned into the request body of the provider's API, ready to send. Pure, no I/O.
 *
 * Targets: OpenAI Chat Completions (default for openai / azure-openai), OpenAI Responses (api_type
 * `responses`), OpenAI legacy Completions (completion templates), Anthropic Messages, Gemini generateContent.
 * The blueprint is first read into one provider-neutral conversation (conversation.ts), then written out per
 * provider (one module per target; targets.ts picks it, overrides.ts merges `model_parameter_overrides`).
 *
 * Decisions (PromptLayer documents `llm_kwargs` as provider-specific and subject to change without notice):
 * - Template variables stay unfilled, as in the raw read; placeholder messages are filled at run time,
 *   so they are dropped, as are media variables and provider-output blocks (tool results, code runs).
 * - OpenAI content keeps the array-of-parts form: it is lossless (several blocks, images) and every role
 *   accepts it, so one shape serves all messages.
 * - Parameters pass through verbatim for Chat Completions; every other target gets an allowlist plus
 *   renames, so OpenAI-only keys (penalties, logprobs, n, seed, ...) never leak into a foreign body.
 * - Deprecated `functions` / `function_call` are read as tools, so every target sees one tool model.
 * - Structured output (`response_format`): Responses `text.format`; Anthropic's GA `output_config.format`
 *   (native constrained decoding, no forced tool); Gemini `responseJsonSchema` (full JSON Schema, where
 *   `responseSchema` only takes an OpenAPI subset). `json_object` has no Anthropic equivalent and is dropped.
 * - Anthropic and Gemini: system messages go to `system` / `systemInstruction` wherever they stand,
 *   consecutive tool results merge into one user turn (parallel calls answer together), and messages
 *   left with nothing a provider can take are dropped rather than sent empty.
 */
import { invalid } from '#shared/platform/errors.ts';
import type { JsonObject as Json } from '#shared/platform/json.ts';
import { toAnthropic } from './anthropic.ts';
import { LlmKwargsError, type ModelMetadata, type PromptBlueprint, unrenderable } from './blueprint.ts';
import { fromChat, fromCompletion, omit, textOf, toParts } from './conversation.ts';
import { toGemini } from './gemini.ts';
import { toChatCompletions } from './openai-chat.ts';
import { toResponses } from './openai-responses.ts';
import { withOverrides } from './overrides.ts';
import { targetOf } from './targets.ts';

const LOC = ['query', 'include_llm_kwargs'];

export interface LlmKwargsOptions {
  /** Where a 422 points (default `query.include_llm_kwargs`). */
  loc?: (string | number)[];
  /** `model_parameter_overrides`: merged into the parameters under the target's names (OVERRIDE_NAMES). */
  overrides?: Json | null;
}

/** The provider request body; a 422 at `options.loc` when it cannot be built. */
export function renderLlmKwargs(
  blueprint: PromptBlueprint,
  model: ModelMetadata | undefined | null,
  options: LlmKwargsOptions = {},
): Json {
  try {
    return buildLlmKwargs(blueprint, model, options.overrides);
  } catch (error) {
    if (error instanceof LlmKwargsError) throw invalid(options.loc ?? LOC, error.message);
    throw error;
  }
}

/** The provider request body; throws LlmKwargsError when it cannot be built. */
export function buildLlmKwargs(
  blueprint: PromptBlueprint,
  model: ModelMetadata | undefined | null,
  overrides?: Json | null,
): Json {
  if (!model?.provider || !model.name) throw unrenderable('the template has no model metadata');
  const target = targetOf(model.provider, model.api_type);
  const params = withOverrides(model.parameters ?? {}, overrides, target);
  if (blueprint.type === 'completion' && (target === 'chat-completions' || target === 'completions')) {
    return {
      model: model.name,
      ...omit(params, ['model', 'prompt']),
      prompt: textOf(toParts(blueprint.content)),
    };
  }
  if (target === 'completions')
    throw unrenderable('a chat template cannot be rendered for the completions API');
  const conversation = blueprint.type === 'chat' ? fromChat(blueprint) : fromCompletion(blueprint);
  switch (target) {
    case 'chat-completions':
      return toChatCompletions(model.name, conversation, params);
    case 'responses':
      return toResponses(model.name, conversation, params);
    case 'anthropic':
      return toAnthropic(model.name, conversation, params);
    case 'gemini':
      return toGemini(model.name, conversation, params);
  }
}
