import type { Blueprint, ContentBlock, Message, TemplateVersion } from './api.ts';

/**
 * A version as the screen shows and diffs it: its messages as (role, text) pairs and its configuration
 * as one JSON document. A completion template is one message of role `prompt`.
 */
export interface ShownMessage {
  role: string;
  text: string;
}

/** A block's text; a block that is not text (an image, a tool call) as its JSON, so a diff still sees it. */
function blockText(block: ContentBlock): string {
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  return `[${block.type}] ${JSON.stringify(block)}`;
}

function messageText(message: Message): string {
  const { role: _role, content, ...rest } = message;
  const parts = (content ?? []).map(blockText);
  // tool_calls, a placeholder's name...: shown as JSON after the text.
  if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest, null, 2));
  return parts.join('\n');
}

export function messagesOf(template: Blueprint): ShownMessage[] {
  if (template.type === 'completion')
    return [{ role: 'prompt', text: (template.content ?? []).map(blockText).join('\n') }];
  return (template.messages ?? []).map((message) => ({ role: message.role, text: messageText(message) }));
}

/** The model, its parameters and the template's settings besides its messages, pretty-printed. */
export function configOf(version: TemplateVersion): string {
  const {
    type: _type,
    messages: _messages,
    content: _content,
    ...settings
  } = version.prompt_template as Record<string, unknown>;
  return JSON.stringify({ model: version.metadata?.model ?? null, ...settings }, null, 2);
}
