import {
  asArray,
  asString,
  asText,
  blueprintRole,
  chatBlueprint,
  isObject,
  type Json,
  keepBlock,
  textBlock,
  toolCall,
  toolsOf,
  without,
} from './blocks.ts';
import { type Conversion, tokenFields } from './types.ts';
import { openAIResponsesUsage } from './usage.ts';

/**
 * OpenAI's Responses API (`openai.responses.create`) as prompt blueprints. `instructions` becomes a
 * system message; `input` (a string or a list of items) becomes the messages: message items with their
 * `input_text` / `output_text` parts as text blocks, `function_call` items as an assistant's
 * `tool_calls`, `function_call_output` items as `tool` messages. The response's `output` items become
 * one assistant message: text parts as text blocks (annotations kept), `reasoning` items as `thinking`
 * blocks, `function_call` items as `tool_calls`, any other item (built-in tool calls) as a block of its
 * own type.
 */
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);

function part(value: unknown): Json {
  if (isObject(value) && TEXT_PARTS.has(value.type as string)) {
    const { type: _type, text, ...rest } = value;
    return { ...rest, type: 'text', text: asText(text) };
  }
  return keepBlock(value);
}

const parts = (content: unknown): Json[] =>
  typeof content === 'string' ? [textBlock(content)] : asArray(content).map(part);

const reasoningBlock = (item: Json): Json => ({
  type: 'thinking',
  thinking: asArray(item.summary)
    .map((summary) => (isObject(summary) ? asText(summary.text) : asText(summary)))
    .join('\n'),
  ...(item.id !== undefined ? { id: item.id } : {}),
  ...(item.encrypted_content != null ? { signature: item.encrypted_content } : {}),
});

const functionCall = (item: Json) => toolCall(item.call_id ?? item.id, item.name, item.arguments);

function inputMessages(input: unknown): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: [textBlock(input)] }];
  const messages: Json[] = [];
  for (const item of asArray(input)) {
    if (!isObject(item)) {
      messages.push({ role: 'user', content: [keepBlock(item)] });
    } else if (item.type === 'function_call') {
      const last = messages.at(-1);
      // Consecutive calls of one turn go into one assistant message.
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls))
        last.tool_calls.push(functionCall(item));
      else messages.push({ role: 'assistant', content: [], tool_calls: [functionCall(item)] });
    } else if (item.type === 'function_call_output') {
      messages.push({
        role: 'tool',
        tool_call_id: asString(item.call_id) ?? '',
        content: parts(item.output),
      });
    } else if (item.type === undefined || item.type === 'message') {
      messages.push({ role: blueprintRole(item.role), content: parts(item.content) });
    } else if (item.type === 'reasoning') {
      messages.push({ role: 'assistant', content: [reasoningBlock(item)] });
    } else {
      messages.push({ role: 'assistant', content: [keepBlock(item)] });
    }
  }
  return messages;
}

function outputMessage(output: unknown): Json[] {
  const items = asArray(output);
  if (items.length === 0) return [];
  const content: Json[] = [];
  const toolCalls: Json[] = [];
  for (const item of items) {
    if (!isObject(item)) content.push(keepBlock(item));
    else if (item.type === 'message') content.push(...parts(item.content));
    else if (item.type === 'reasoning') content.push(reasoningBlock(item));
    else if (item.type === 'function_call') toolCalls.push(functionCall(item));
    else content.push(keepBlock(item));
  }
  return [{ role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }];
}

export function fromOpenAIResponses(kwargs: Json, response: unknown): Conversion {
  const body = isObject(response) ? response : {};
  const instructions = asString(kwargs.instructions);
  const system = instructions ? [{ role: 'system', content: [textBlock(instructions)] }] : [];
  return {
    model: asString(body.model) ?? asString(kwargs.model),
    api_type: 'responses',
    input: chatBlueprint([...system, ...inputMessages(kwargs.input)], toolsOf(kwargs)),
    output: chatBlueprint(outputMessage(body.output)),
    ...tokenFields(openAIResponsesUsage(body.usage)),
    parameters: without(kwargs, ['input', 'instructions']),
  };
}
