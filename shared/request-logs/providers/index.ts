import { fromAnthropic } from './anthropic.ts';
import { chatBlueprint, isObject, type Json } from './blocks.ts';
import { fromGoogle } from './google.ts';
import { fromOpenAIChat, fromOpenAICompletion } from './openai-chat.ts';
import { fromOpenAIResponses } from './openai-responses.ts';
import { type Conversion, tokenFields } from './types.ts';
import { googleUsageBlock, NO_USAGE } from './usage.ts';

export type { Conversion } from './types.ts';

/**
 * Turns a provider call, as the PromptLayer SDK reports it to /track-request (the SDK's function name,
 * the request's keyword arguments and the provider's response), into a request log's blueprints, tokens,
 * model and parameters. Pure: no I/O, never throws on an odd payload.
 *
 * The API is chosen by the function name's ending (so `openai.AzureOpenAI.chat.completions.create` is
 * OpenAI chat too), else by the response's shape. A call of no known API is still logged: empty
 * blueprints, the whole request as parameters, and `known: false` so the caller keeps the raw response.
 */
type Converter = (kwargs: Json, response: unknown) => Conversion;

const BY_FUNCTION: readonly [suffix: string, convert: Converter][] = [
  ['chat.completions.create', fromOpenAIChat],
  ['responses.create', fromOpenAIResponses],
  ['messages.create', fromAnthropic],
  ['openai.completions.create', fromOpenAICompletion],
  ['AzureOpenAI.completions.create', fromOpenAICompletion],
  ['model.generate_content', fromGoogle],
  ['convo.send_message', fromGoogle],
];

function byShape(kwargs: Json, response: unknown): Converter | undefined {
  const body = isObject(response) ? response : {};
  if (body.object === 'response' || 'input' in kwargs) return fromOpenAIResponses;
  if (body.type === 'message' || 'system' in kwargs) return fromAnthropic;
  if (body.object === 'chat.completion' || Array.isArray(kwargs.messages)) return fromOpenAIChat;
  if (googleUsageBlock(body) !== undefined || Array.isArray(body.candidates)) return fromGoogle;
  return undefined;
}

export interface TrackedCall {
  function_name: string;
  kwargs: Json;
  request_response: unknown;
}

export function convertTrackedCall(call: TrackedCall): Conversion & { known: boolean } {
  const convert =
    BY_FUNCTION.find(([suffix]) => call.function_name.endsWith(suffix))?.[1] ??
    byShape(call.kwargs, call.request_response);
  if (convert) return { ...convert(call.kwargs, call.request_response), known: true };
  const response = isObject(call.request_response) ? call.request_response : {};
  return {
    model: [response.model, call.kwargs.model].find((model): model is string => typeof model === 'string'),
    api_type: null,
    input: chatBlueprint([]),
    output: chatBlueprint([]),
    ...tokenFields(NO_USAGE),
    parameters: call.kwargs,
    known: false,
  };
}
