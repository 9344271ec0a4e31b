import { isJsonObject } from '#shared/platform/json.ts';
import type { OtlpSpan } from '../spans.ts';
import {
  asCost,
  asCount,
  asString,
  type Convention,
  indexed,
  type Mapper,
  parseJson,
  type Rule,
  unflatten,
} from './mapper.ts';
import { chatBlueprint, type Message, messagesOf, openAIMessage, textParts } from './messages.ts';

/**
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`, semconv 1.42, "development"): the current
 * `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions` attributes, the
 * older per-message events (`gen_ai.user.message`, `gen_ai.choice`, ...) and `gen_ai.prompt` /
 * `gen_ai.completion` (a JSON attribute, OpenLLMetry's `gen_ai.prompt.N.*`, or the `gen_ai.content.*`
 * events), and the deprecated usage names `prompt_tokens` / `completion_tokens`. Usage means what the
 * convention says: input includes cached and cache-written tokens, output includes reasoning tokens.
 */

/** Operations that are one call of a model; agents, tools and embeddings are spans only. */
const MODEL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion', 'responses']);

/** A GenAI message (`{role, parts: [...]}`) or, leniently, an OpenAI-shaped one. */
function genAiMessage(message: unknown): Message {
  if (isJsonObject(message) && Array.isArray(message.parts))
    return { role: String(message.role ?? 'user'), parts: textParts(message.parts) };
  return openAIMessage(message);
}

const messages = (value: unknown): Message[] => {
  const parsed = parseJson(value);
  return Array.isArray(parsed) ? parsed.map(genAiMessage) : messagesOf(parsed);
};

/** `gen_ai.system_instructions`: an array of parts, or text. */
const systemMessage = (value: unknown): Message[] => {
  const parsed = parseJson(value);
  return [{ role: 'system', parts: textParts(parsed) }];
};

/** OpenLLMetry's flattened `gen_ai.prompt.N.role` / `.content` / `.tool_calls.M.*`. */
const indexedMessages = (group: unknown): Message[] =>
  indexed(unflatten(group as Record<string, unknown>)).map((message) => {
    const value = isJsonObject(message) ? { ...message } : {};
    if (isJsonObject(value.tool_calls)) value.tool_calls = indexed(value.tool_calls);
    return openAIMessage({ ...value, content: parseJson(value.content) });
  });

const input = (read: (value: unknown) => Message[]) => (value: unknown, span: OtlpSpan) => {
  const system = span.attributes['gen_ai.system_instructions'];
  const found = read(value);
  return chatBlueprint(system === undefined ? found : [...systemMessage(system), ...found]);
};
const output = (read: (value: unknown) => Message[]) => (value: unknown) => chatBlueprint(read(value));

const parameter = (name: string, key: string): Rule => ({
  attribute: `gen_ai.request.${name}`,
  field: `parameters.${key}`,
});

export const GEN_AI_RULES: readonly Rule[] = [
  { attribute: 'gen_ai.provider.name', field: 'provider', read: asString },
  { attribute: 'gen_ai.system', field: 'provider', read: asString },
  { attribute: 'gen_ai.response.model', field: 'model', read: asString },
  { attribute: 'gen_ai.request.model', field: 'model', read: asString },
  { attribute: 'gen_ai.operation.name', field: 'api_type', read: asString },
  { attribute: 'gen_ai.input.messages', field: 'input', read: input(messages) },
  { attribute: 'gen_ai.prompt', field: 'input', read: input(messages) },
  { attribute: 'gen_ai.prompt.', field: 'input', read: input(indexedMessages) },
  { attribute: 'gen_ai.output.messages', field: 'output', read: output(messages) },
  { attribute: 'gen_ai.completion', field: 'output', read: output(messages) },
  { attribute: 'gen_ai.completion.', field: 'output', read: output(indexedMessages) },
  { attribute: 'gen_ai.system_instructions', field: 'input.system', read: () => true },
  { attribute: 'gen_ai.usage.input_tokens', field: 'usage.input_tokens', read: asCount },
  { attribute: 'gen_ai.usage.prompt_tokens', field: 'usage.input_tokens', read: asCount },
  { attribute: 'gen_ai.usage.output_tokens', field: 'usage.output_tokens', read: asCount },
  { attribute: 'gen_ai.usage.completion_tokens', field: 'usage.output_tokens', read: asCount },
  { attribute: 'gen_ai.usage.cache_read.input_tokens', field: 'usage.cache_read_tokens', read: asCount },
  { attribute: 'gen_ai.usage.cache_creation.input_tokens', field: 'usage.cache_write_tokens', read: asCount },
  { attribute: 'gen_ai.usage.reasoning.output_tokens', field: 'usage.reasoning_tokens', read: asCount },
  { attribute: 'gen_ai.usage.cost', field: 'cost', read: asCost },
  parameter('temperature', 'temperature'),
  parameter('max_tokens', 'max_tokens'),
  parameter('top_p', 'top_p'),
  parameter('top_k', 'top_k'),
  parameter('frequency_penalty', 'frequency_penalty'),
  parameter('presence_penalty', 'presence_penalty'),
  parameter('stop_sequences', 'stop'),
  parameter('seed', 'seed'),
  parameter('choice.count', 'n'),
  { attribute: 'gen_ai.output.type', field: 'parameters.response_format', read: asString },
  { attribute: 'gen_ai.response.finish_reasons', field: 'metadata.finish_reason', read: finishReasons },
  { attribute: 'gen_ai.response.id', field: 'metadata.response_id', read: asString },
  { attribute: 'gen_ai.conversation.id', field: 'metadata.gen_ai.conversation.id', read: asString },
  { attribute: 'gen_ai.agent.name', field: 'metadata.agent_name', read: asString },
];

function finishReasons(value: unknown): string | undefined {
  const reasons = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
  return reasons.length > 0 ? reasons.join(',') : undefined;
}

/** Events of the older conventions: one per message (`gen_ai.<role>.message`, `gen_ai.choice`). */
const MESSAGE_EVENT = /^gen_ai\.(system|user|assistant|tool)\.message$/;

function fromEvents(span: OtlpSpan, mapper: Mapper): void {
  const inputs: Message[] = [];
  const outputs: Message[] = [];
  const names = new Set<string>();
  for (const event of span.events) {
    const role = MESSAGE_EVENT.exec(event.name)?.[1];
    const body = event.attributes;
    if (role) {
      const content = parseJson(body.content);
      inputs.push(
        openAIMessage({
          role,
          content,
          tool_calls: parseJson(body.tool_calls),
          tool_call_id: body.id ?? body.tool_call_id,
        }),
      );
      names.add(`event ${event.name}`);
    } else if (event.name === 'gen_ai.choice') {
      const message = parseJson(body.message);
      outputs.push(
        isJsonObject(message)
          ? openAIMessage({ role: 'assistant', ...message })
          : openAIMessage({ role: 'assistant', content: message }),
      );
      names.add('event gen_ai.choice');
    } else if (event.name === 'gen_ai.content.prompt' && body['gen_ai.prompt'] !== undefined) {
      inputs.push(...messages(body['gen_ai.prompt']));
      names.add('event gen_ai.content.prompt');
    } else if (event.name === 'gen_ai.content.completion' && body['gen_ai.completion'] !== undefined) {
      outputs.push(...messages(body['gen_ai.completion']));
      names.add('event gen_ai.content.completion');
    }
  }
  const from = [...names];
  if (inputs.length > 0) mapper.set('input', chatBlueprint(inputs), from, 'gen_ai');
  if (outputs.length > 0) mapper.set('output', chatBlueprint(outputs), from, 'gen_ai');
}

/** Agent spans of the GenAI convention and of @ai-sdk/otel: they contain model calls, never are one. */
const WRAPPER_SPAN = /^(invoke_agent|agent_step|create_agent|execute_tool)\b/;

const hasGenAi = (span: OtlpSpan) => Object.keys(span.attributes).some((name) => name.startsWith('gen_ai.'));

export const genAi: Convention = {
  name: 'gen_ai',
  claims: hasGenAi,
  modelCall(span) {
    // @ai-sdk/otel (AI SDK 7) repeats the total usage on its agent spans: only the `chat` leaf is a call.
    if (WRAPPER_SPAN.test(span.name))
      return `${span.name.split(' ')[0]} wraps model calls (its usage is theirs)`;
    const operation = asString(span.attributes['gen_ai.operation.name']);
    if (operation !== undefined)
      return MODEL_OPERATIONS.has(operation)
        ? true
        : `gen_ai.operation.name is ${operation}, not a model call`;
    const model = span.attributes['gen_ai.request.model'] ?? span.attributes['gen_ai.response.model'];
    return model !== undefined ? true : 'no gen_ai.operation.name and no model';
  },
  rules: GEN_AI_RULES,
  fromEvents,
};
