import {
  asArray,
  asString,
  asText,
  chatBlueprint,
  isObject,
  type Json,
  textBlock,
  toolCall,
  without,
} from './blocks.ts';
import { type Conversion, tokenFields } from './types.ts';
import { googleUsage, googleUsageBlock } from './usage.ts';

/**
 * Google Gemini's `generate_content` (and a chat's `send_message`) as prompt blueprints. `contents` (a
 * string, or `{role, parts}` items with `model` as the assistant's role) become messages: text parts as
 * text blocks, `functionCall` parts as the assistant's `tool_calls`, `functionResponse` parts as `tool`
 * messages; any other part is kept as a text block of its JSON. The system instruction becomes a system
 * message. Both spellings are read: camelCase (JavaScript) and snake_case (Python). Usage: usage.ts.
 */
const pick = (object: unknown, camel: string, snake: string): unknown =>
  isObject(object) ? (object[camel] ?? object[snake]) : undefined;

function message(content: unknown): Json[] {
  if (typeof content === 'string') return [{ role: 'user', content: [textBlock(content)] }];
  if (!isObject(content)) return [];
  const role = content.role === 'model' ? 'assistant' : 'user';
  const blocks: Json[] = [];
  const toolCalls: Json[] = [];
  const results: Json[] = [];
  for (const part of asArray(content.parts)) {
    const call = pick(part, 'functionCall', 'function_call');
    const result = pick(part, 'functionResponse', 'function_response');
    if (isObject(part) && typeof part.text === 'string') blocks.push(textBlock(part.text));
    else if (isObject(call)) toolCalls.push(toolCall(call.id ?? '', call.name, call.args));
    else if (isObject(result))
      results.push({
        role: 'tool',
        tool_call_id: asString(result.id) ?? asString(result.name) ?? '',
        content: [textBlock(asText(result.response))],
      });
    else blocks.push(textBlock(asText(part)));
  }
  const main = { role, content: blocks, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  return blocks.length === 0 && toolCalls.length === 0 && results.length > 0 ? results : [main, ...results];
}

function systemMessages(kwargs: Json): Json[] {
  const instruction =
    pick(kwargs, 'systemInstruction', 'system_instruction') ??
    pick(pick(kwargs, 'config', 'config'), 'systemInstruction', 'system_instruction');
  if (instruction === undefined || instruction === null || instruction === '') return [];
  const text =
    typeof instruction === 'string'
      ? instruction
      : asArray(pick(instruction, 'parts', 'parts'))
          .map((part) => asText(pick(part, 'text', 'text')))
          .join('\n');
  return [{ role: 'system', content: [textBlock(text)] }];
}

export function fromGoogle(kwargs: Json, response: unknown): Conversion {
  const body = isObject(response) ? response : {};
  const contents = kwargs.contents ?? kwargs.message;
  const candidate = asArray(body.candidates).find(isObject);
  const answer = isObject(candidate?.content) ? { role: 'model', ...candidate.content } : undefined;
  return {
    model:
      asString(pick(body, 'modelVersion', 'model_version')) ?? asString(kwargs.model) ?? asString(body.model),
    api_type: null,
    input: chatBlueprint([
      ...systemMessages(kwargs),
      ...(Array.isArray(contents) ? contents.flatMap(message) : message(contents)),
    ]),
    output: chatBlueprint(answer ? message(answer) : []),
    ...tokenFields(googleUsage(googleUsageBlock(body))),
    parameters: without(kwargs, ['contents', 'message']),
  };
}
