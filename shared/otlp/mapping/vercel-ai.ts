import { isJsonObject } from '#shared/platform/json.ts';
import type { OtlpSpan } from '../spans.ts';
import { asCount, asString, type Convention, parseJson, type Rule } from './mapper.ts';
import { chatBlueprint, type Message, type Part, textParts } from './messages.ts';

/**
 * The Vercel AI SDK's own telemetry (`ai.*`: `experimental_telemetry` up to v6, `LegacyOpenTelemetry` in
 * v7). `ai.generateText` / `ai.streamText` / `ai.generateObject` / `ai.streamObject` wrap one
 * `.doGenerate` / `.doStream` span per model call and repeat the steps' total usage: only the inner span
 * is a request log. Usage: v5+ `inputTokens` (with `cachedInputTokens` in it) and `outputTokens` (with
 * `reasoningTokens`), v4 `promptTokens` / `completionTokens`. (AI SDK 7's `@ai-sdk/otel` writes `gen_ai.*`
 * and is read by the GenAI module.)
 */

/** An AI SDK message (`{role, content: string | [{type: 'text' | 'image' | 'file' | 'tool-call' | 'tool-result'}]}`). */
function aiMessage(message: unknown): Message {
  if (!isJsonObject(message)) return { role: 'user', parts: textParts(message) };
  return { role: String(message.role ?? 'user'), parts: textParts(message.content) };
}

function promptMessages(value: unknown) {
  const parsed = parseJson(value);
  if (Array.isArray(parsed)) return chatBlueprint(parsed.map(aiMessage));
  // `ai.prompt` of the wrapper: {system?, prompt?, messages?}.
  if (isJsonObject(parsed)) {
    const messages: Message[] = [];
    if (typeof parsed.system === 'string') messages.push({ role: 'system', parts: textParts(parsed.system) });
    if (parsed.prompt !== undefined && parsed.prompt !== null)
      messages.push({ role: 'user', parts: textParts(parsed.prompt) });
    if (Array.isArray(parsed.messages)) messages.push(...parsed.messages.map(aiMessage));
    return chatBlueprint(messages);
  }
  return chatBlueprint([{ role: 'user', parts: textParts(parsed) }]);
}

/** The answer: `ai.response.text` and `ai.response.toolCalls`, read together. */
function responseMessage(_value: unknown, span: OtlpSpan) {
  const attributes = span.attributes;
  const parts: Part[] = [];
  const text = attributes['ai.response.text'] ?? attributes['ai.response.object'];
  if (text !== undefined && text !== '') parts.push(...textParts(text));
  const calls = parseJson(attributes['ai.response.toolCalls']);
  for (const call of Array.isArray(calls) ? calls : []) {
    if (!isJsonObject(call)) continue;
    parts.push({
      type: 'tool_call',
      id: String(call.toolCallId ?? ''),
      name: String(call.toolName ?? ''),
      arguments: call.input ?? call.args ?? {},
    });
  }
  return chatBlueprint([{ role: 'assistant', parts }]);
}

/** `openai.chat` / `anthropic.messages`: the provider is the part before the API. */
const providerOf = (value: unknown) => asString(value)?.split('.')[0];

const SETTINGS_SKIPPED = new Set(['maxRetries']);
const settings = (group: unknown) =>
  Object.fromEntries(
    Object.entries(group as Record<string, unknown>).filter(([name]) => !SETTINGS_SKIPPED.has(name)),
  );

/** `ai.prompt.tools`: an array of JSON strings of tool definitions. */
const tools = (value: unknown) =>
  Array.isArray(value) ? value.map((tool) => parseJson(tool)).filter(isJsonObject) : undefined;

export const VERCEL_AI_RULES: readonly Rule[] = [
  { attribute: 'ai.model.provider', field: 'provider', read: providerOf },
  { attribute: 'ai.response.model', field: 'model', read: asString },
  { attribute: 'ai.model.id', field: 'model', read: asString },
  { attribute: 'ai.prompt.messages', field: 'input', read: promptMessages },
  { attribute: 'ai.prompt', field: 'input', read: promptMessages },
  { attribute: 'ai.prompt.tools', field: 'input.tools', read: tools },
  { attribute: 'ai.response.text', field: 'output', read: responseMessage },
  { attribute: 'ai.response.toolCalls', field: 'output', read: responseMessage },
  { attribute: 'ai.response.object', field: 'output', read: responseMessage },
  { attribute: 'ai.settings.', field: 'parameters', read: settings },
  { attribute: 'ai.usage.inputTokens', field: 'usage.input_tokens', read: asCount },
  { attribute: 'ai.usage.promptTokens', field: 'usage.input_tokens', read: asCount },
  { attribute: 'ai.usage.outputTokens', field: 'usage.output_tokens', read: asCount },
  { attribute: 'ai.usage.completionTokens', field: 'usage.output_tokens', read: asCount },
  { attribute: 'ai.usage.cachedInputTokens', field: 'usage.cache_read_tokens', read: asCount },
  {
    attribute: 'ai.usage.inputTokenDetails.cacheReadTokens',
    field: 'usage.cache_read_tokens',
    read: asCount,
  },
  // Only the details carry cache writes (Anthropic's, priced above input).
  {
    attribute: 'ai.usage.inputTokenDetails.cacheWriteTokens',
    field: 'usage.cache_write_tokens',
    read: asCount,
  },
  { attribute: 'ai.usage.reasoningTokens', field: 'usage.reasoning_tokens', read: asCount },
  {
    attribute: 'ai.usage.outputTokenDetails.reasoningTokens',
    field: 'usage.reasoning_tokens',
    read: asCount,
  },
  { attribute: 'ai.response.finishReason', field: 'metadata.finish_reason', read: asString },
  { attribute: 'ai.telemetry.functionId', field: 'metadata.function_id', read: asString },
];

const operationOf = (span: OtlpSpan) => asString(span.attributes['ai.operationId']);

export const vercelAi: Convention = {
  name: 'vercel_ai',
  claims: (span) => operationOf(span)?.startsWith('ai.') === true,
  modelCall(span) {
    const operation = operationOf(span) ?? '';
    if (/\.(doGenerate|doStream)$/.test(operation)) return true;
    return `${operation} is not a provider call (its .doGenerate / .doStream children are)`;
  },
  rules: VERCEL_AI_RULES,
};
