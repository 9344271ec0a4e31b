import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';
import type { OtlpSpan } from '../spans.ts';
import {
  asCost,
  asCount,
  asObject,
  asString,
  type Convention,
  indexed,
  parseJson,
  type Rule,
  unflatten,
} from './mapper.ts';
import { chatBlueprint, type Message, messagesOf, type Part, textParts } from './messages.ts';

/**
 * OpenInference (Arize Phoenix's instrumentations): `openinference.span.kind` = LLM marks a model call;
 * messages are flattened (`llm.input_messages.N.message.role`, `.content`, `.contents.M.message_content.*`,
 * `.tool_calls.K.tool_call.*`, `.tool_call_id`); `input.value` / `output.value` stand in when no message
 * is recorded. `llm.token_count.prompt` includes `prompt_details.cache_read` / `cache_write`, and
 * `completion` includes `completion_details.reasoning`, as the GenAI convention counts them.
 */

/** One flattened message (`{message: {role, content, contents, tool_calls, tool_call_id}}`) as parts. */
function oiMessage(entry: unknown): Message {
  const message = isJsonObject(entry) && isJsonObject(entry.message) ? entry.message : {};
  const role = asString(message.role) ?? 'user';
  const parts: Part[] = textParts(message.content);
  for (const item of indexed(message.contents)) {
    const content = isJsonObject(item) && isJsonObject(item.message_content) ? item.message_content : {};
    if (content.type === 'image') {
      const image =
        isJsonObject(content.image) && isJsonObject(content.image.image) ? content.image.image : {};
      parts.push({ type: 'media', mime_type: '', url: String(image.url ?? '') });
    } else parts.push(...textParts(content.text));
  }
  for (const item of indexed(message.tool_calls)) {
    const call = isJsonObject(item) && isJsonObject(item.tool_call) ? item.tool_call : {};
    const fn = isJsonObject(call.function) ? call.function : {};
    parts.push({
      type: 'tool_call',
      id: String(call.id ?? ''),
      name: String(fn.name ?? ''),
      arguments: fn.arguments ?? '{}',
    });
  }
  if (role === 'tool' && message.tool_call_id !== undefined)
    return {
      role,
      parts: [{ type: 'tool_result', id: String(message.tool_call_id), content: message.content ?? '' }],
    };
  return { role, parts };
}

const flattenedMessages = (group: unknown) =>
  chatBlueprint(indexed(unflatten(group as JsonObject)).map(oiMessage));

/** `input.value` / `output.value`: the provider's JSON request or answer, or text. */
function inputValue(value: unknown): JsonObject {
  const parsed = parseJson(value);
  return chatBlueprint(messagesOf(parsed));
}
function outputValue(value: unknown): JsonObject {
  const parsed = parseJson(value);
  // An OpenAI chat completion: its first choice's message.
  const choice = isJsonObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  if (isJsonObject(choice) && isJsonObject(choice.message)) return chatBlueprint(messagesOf(choice.message));
  return chatBlueprint(messagesOf(parsed, 'assistant'));
}

/** `llm.invocation_parameters`: a JSON object of the request's parameters (the model among them). */
const invocationParameters = (value: unknown) => {
  const parameters = asObject(value);
  if (!parameters) return undefined;
  const { model: _model, messages: _messages, ...rest } = parameters;
  return rest;
};

export const OPENINFERENCE_RULES: readonly Rule[] = [
  { attribute: 'llm.provider', field: 'provider', read: asString },
  { attribute: 'llm.system', field: 'provider', read: asString },
  { attribute: 'llm.model_name', field: 'model', read: asString },
  { attribute: 'llm.input_messages.', field: 'input', read: flattenedMessages },
  { attribute: 'input.value', field: 'input', read: inputValue },
  { attribute: 'llm.output_messages.', field: 'output', read: flattenedMessages },
  { attribute: 'output.value', field: 'output', read: outputValue },
  { attribute: 'llm.invocation_parameters', field: 'parameters', read: invocationParameters },
  { attribute: 'llm.token_count.prompt', field: 'usage.input_tokens', read: asCount },
  { attribute: 'llm.token_count.completion', field: 'usage.output_tokens', read: asCount },
  { attribute: 'llm.token_count.prompt_details.cache_read', field: 'usage.cache_read_tokens', read: asCount },
  {
    attribute: 'llm.token_count.prompt_details.cache_write',
    field: 'usage.cache_write_tokens',
    read: asCount,
  },
  {
    attribute: 'llm.token_count.completion_details.reasoning',
    field: 'usage.reasoning_tokens',
    read: asCount,
  },
  { attribute: 'llm.cost.total', field: 'cost', read: asCost },
  { attribute: 'session.id', field: 'metadata.session.id', read: asString },
  { attribute: 'user.id', field: 'metadata.user.id', read: asString },
  { attribute: 'llm.prompt_template.template', field: 'metadata.prompt_template', read: asString },
];

export const openInference: Convention = {
  name: 'openinference',
  claims: (span: OtlpSpan) => span.attributes['openinference.span.kind'] !== undefined,
  modelCall(span) {
    const kind = String(span.attributes['openinference.span.kind']).toUpperCase();
    return kind === 'LLM' ? true : `openinference.span.kind is ${kind}, not LLM`;
  },
  rules: OPENINFERENCE_RULES,
};
