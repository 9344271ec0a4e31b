import {
  asArray,
  asString,
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
import { anthropicUsage } from './usage.ts';

/**
 * Anthropic's Messages API (`anthropic.messages.create`) as prompt blueprints. `system` (a string or
 * text blocks) becomes a system message; text, thinking, redacted_thinking and image blocks stay content
 * blocks as they are; `tool_use` blocks become the assistant's `tool_calls` (input as JSON arguments);
 * `tool_result` blocks become `tool` messages after the turn that carries them. Usage: providers/usage.ts
 * (its `input_tokens` leaves out the cache tokens, which are added).
 */
function toolResultContent(content: unknown): Json[] {
  return typeof content === 'string' ? [textBlock(content)] : asArray(content).map(keepBlock);
}

/** One Anthropic message as blueprint messages: the message itself, then one per tool result. */
function messages(message: unknown): Json[] {
  if (!isObject(message)) return [{ role: 'user', content: [keepBlock(message)] }];
  const role = blueprintRole(message.role);
  if (typeof message.content === 'string') return [{ role, content: [textBlock(message.content)] }];
  const content: Json[] = [];
  const toolCalls: Json[] = [];
  const results: Json[] = [];
  for (const block of asArray(message.content)) {
    if (isObject(block) && block.type === 'tool_use')
      toolCalls.push(toolCall(block.id, block.name, block.input));
    else if (isObject(block) && block.type === 'tool_result') {
      results.push({
        role: 'tool',
        tool_call_id: asString(block.tool_use_id) ?? '',
        content: toolResultContent(block.content),
        ...(block.is_error === true ? { is_error: true } : {}),
      });
    } else content.push(keepBlock(block));
  }
  const main = { role, content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  // A user turn of tool results alone is only its results.
  return content.length === 0 && toolCalls.length === 0 && results.length > 0 ? results : [main, ...results];
}

function systemMessages(system: unknown): Json[] {
  if (typeof system === 'string')
    return system === '' ? [] : [{ role: 'system', content: [textBlock(system)] }];
  const blocks = asArray(system).map(keepBlock);
  return blocks.length > 0 ? [{ role: 'system', content: blocks }] : [];
}

export function fromAnthropic(kwargs: Json, response: unknown): Conversion {
  const body = isObject(response) ? response : {};
  const answered = Array.isArray(body.content);
  return {
    model: asString(body.model) ?? asString(kwargs.model),
    api_type: null,
    input: chatBlueprint(
      [...systemMessages(kwargs.system), ...asArray(kwargs.messages).flatMap(messages)],
      toolsOf(kwargs),
    ),
    output: chatBlueprint(answered ? messages({ role: 'assistant', content: body.content }) : []),
    ...tokenFields(anthropicUsage(body.usage)),
    parameters: without(kwargs, ['messages', 'system']),
  };
}
