import {
  asArray,
  asString,
  blueprintRole,
  chatBlueprint,
  isObject,
  type Json,
  keepBlock,
  textBlock,
  toolsOf,
  without,
} from './blocks.ts';
import { type Conversion, tokenFields } from './types.ts';
import { openAIChatUsage } from './usage.ts';

/**
 * OpenAI's Chat Completions API (`openai.chat.completions.create`) and legacy Completions API
 * (`openai.completions.create`) as prompt blueprints. Chat messages already have the blueprint's shape,
 * save that content may be a plain string: it becomes a text block; `tool_calls`, `tool_call_id` and
 * `name` are kept as they are.
 */
export function chatMessage(message: unknown): Json {
  if (!isObject(message)) return { role: 'user', content: [keepBlock(message)] };
  const role = blueprintRole(message.role);
  const { content } = message;
  const blocks =
    typeof content === 'string' ? [textBlock(content)] : Array.isArray(content) ? content.map(keepBlock) : [];
  return { ...message, role, content: blocks };
}

export function fromOpenAIChat(kwargs: Json, response: unknown): Conversion {
  const body = isObject(response) ? response : {};
  const choice = asArray(body.choices).find(isObject);
  return {
    model: asString(body.model) ?? asString(kwargs.model),
    api_type: 'chat-completions',
    input: chatBlueprint(asArray(kwargs.messages).map(chatMessage), toolsOf(kwargs)),
    output: chatBlueprint(isObject(choice?.message) ? [chatMessage(choice.message)] : []),
    ...tokenFields(openAIChatUsage(body.usage)),
    parameters: without(kwargs, ['messages']),
  };
}

const completion = (text: unknown): Json => ({
  type: 'completion',
  content: text === undefined ? [] : [keepBlock(Array.isArray(text) ? text.join('\n') : text)],
});

export function fromOpenAICompletion(kwargs: Json, response: unknown): Conversion {
  const body = isObject(response) ? response : {};
  const choice = asArray(body.choices).find(isObject);
  return {
    model: asString(body.model) ?? asString(kwargs.model),
    api_type: 'completions',
    input: completion(kwargs.prompt),
    output: completion(choice?.text),
    ...tokenFields(openAIChatUsage(body.usage)),
    parameters: without(kwargs, ['prompt']),
  };
}
