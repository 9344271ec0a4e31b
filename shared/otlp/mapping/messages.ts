import { MESSAGE_ROLES } from '#shared/blueprints/schema.ts';
import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';
import { asText } from './mapper.ts';

/**
 * Chat messages of every convention, first read into one small form (a role and its parts), then written
 * as prompt-blueprint messages: text blocks, the assistant's `tool_calls`, tool results as `tool`
 * messages with `tool_call_id`, images as references. Inline media (base64, data: URLs) never reaches
 * the log: a `media` block names its type and size, and the bytes stay in the span's attributes.
 */

export type Part =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_result'; id: string; content: unknown }
  | { type: 'media'; mime_type: string; url?: string; data?: string };

export interface Message {
  role: string;
  parts: Part[];
}

/** Inline media longer than this is a reference in the log (short data: URLs, icons, stay). */
const INLINE_MEDIA_CHARS = 1024;

export function chatBlueprint(messages: readonly Message[], extra: JsonObject = {}): JsonObject {
  return { type: 'chat', messages: messages.flatMap(blueprintMessages), ...extra };
}

/** A completion (a prompt or an answer as one text). */
export const completionBlueprint = (text: unknown): JsonObject => ({
  type: 'completion',
  content: text === undefined ? [] : [{ type: 'text', text: asText(text) }],
});

function blueprintMessages(message: Message): JsonObject[] {
  const role = (MESSAGE_ROLES as readonly string[]).includes(message.role)
    ? message.role
    : roleOf(message.role);
  const content: JsonObject[] = [];
  const toolCalls: JsonObject[] = [];
  const results: JsonObject[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.type === 'media') content.push(mediaBlock(part));
    else if (part.type === 'tool_call') {
      toolCalls.push({
        id: part.id,
        type: 'function',
        function: {
          name: part.name,
          arguments:
            typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {}),
        },
      });
    } else {
      results.push({
        role: 'tool',
        tool_call_id: part.id,
        content: [{ type: 'text', text: asText(part.content ?? '') }],
      });
    }
  }
  if (role === 'tool' && results.length > 0 && content.length === 0) return results;
  const main =
    content.length > 0 || toolCalls.length > 0 || results.length === 0
      ? [{ role, content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }]
      : [];
  return [...main, ...results];
}

/** Roles of other vocabularies: `model` (Gemini), `human`/`ai` (LangChain). */
function roleOf(role: string): string {
  if (role === 'model' || role === 'ai') return 'assistant';
  if (role === 'human') return 'user';
  return 'user';
}

function mediaBlock(part: Extract<Part, { type: 'media' }>): JsonObject {
  const url = part.url ?? '';
  const inline = part.data ?? (url.startsWith('data:') ? url : undefined);
  if (inline === undefined) return { type: 'image_url', image_url: { url } };
  if (inline.length <= INLINE_MEDIA_CHARS && url !== '') return { type: 'image_url', image_url: { url } };
  const mime = part.mime_type || /^data:([^;,]+)/.exec(inline)?.[1] || 'application/octet-stream';
  return {
    type: 'media',
    media: { mime_type: mime, omitted_base64_chars: inline.length, in: 'span attributes' },
  };
}

/** Text, or the text parts of an array of blocks, as parts. */
export function textParts(content: unknown): Part[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content.flatMap(blockPart);
  return [{ type: 'text', text: asText(content) }];
}

/**
 * One content block of the shapes SDKs log: OpenAI's (`text`, `image_url`), the AI SDK's (`text`,
 * `image`, `file`, `tool-call`, `tool-result`), Anthropic's (`tool_use`, `tool_result`, `image`), the
 * GenAI convention's parts (`text`, `tool_call`, `tool_call_response`, `blob`, `uri`).
 */
function blockPart(block: unknown): Part[] {
  if (typeof block === 'string') return [{ type: 'text', text: block }];
  if (!isJsonObject(block)) return [{ type: 'text', text: asText(block) }];
  switch (block.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
    case 'reasoning':
      return [{ type: 'text', text: asText(block.text ?? block.content ?? '') }];
    case 'image_url': {
      const image = block.image_url;
      return [{ type: 'media', mime_type: '', url: asText(isJsonObject(image) ? image.url : image) }];
    }
    case 'image':
    case 'file':
    case 'blob':
    case 'uri': {
      const source = isJsonObject(block.source) ? block.source : {};
      const data = block.image ?? block.data ?? block.content ?? source.data;
      const mime = asText(block.mime_type ?? block.mediaType ?? block.mimeType ?? source.media_type ?? '');
      const url = block.uri ?? block.url ?? source.url;
      if (typeof url === 'string' && url !== '') return [{ type: 'media', mime_type: mime, url }];
      if (typeof data === 'string' && /^(https?:)?\/\//.test(data))
        return [{ type: 'media', mime_type: mime, url: data }];
      return [{ type: 'media', mime_type: mime, data: typeof data === 'string' ? data : asText(data ?? '') }];
    }
    case 'tool_call':
    case 'tool-call':
    case 'tool_use':
    case 'function_call':
      return [
        {
          type: 'tool_call',
          id: asText(block.id ?? block.toolCallId ?? block.call_id ?? ''),
          name: asText(block.name ?? block.toolName ?? ''),
          arguments: block.arguments ?? block.input ?? block.args ?? {},
        },
      ];
    case 'tool_call_response':
    case 'tool-result':
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          id: asText(block.id ?? block.toolCallId ?? block.tool_use_id ?? ''),
          content:
            block.response ??
            (block.type === 'tool-result' ? aiSdkToolOutput(block.output) : block.output) ??
            block.result ??
            block.content ??
            '',
        },
      ];
    default:
      return [{ type: 'text', text: asText(block) }];
  }
}

/** AI SDK 5+ wraps what a tool returned as `{type: 'json' | 'text' | 'error-json' | 'error-text', value}`. */
const AI_SDK_OUTPUT_TYPES = new Set(['json', 'text', 'error-json', 'error-text']);
const aiSdkToolOutput = (output: unknown) =>
  isJsonObject(output) &&
  typeof output.type === 'string' &&
  AI_SDK_OUTPUT_TYPES.has(output.type) &&
  'value' in output
    ? output.value
    : output;

/**
 * A message in the OpenAI chat shape (also what OpenLLMetry, Langfuse and many SDKs log): string or
 * block content, `tool_calls`, and `tool_call_id` on tool results.
 */
export function openAIMessage(message: unknown): Message {
  if (!isJsonObject(message)) return { role: 'user', parts: textParts(message) };
  const role = asText(message.role ?? 'user');
  const parts = textParts(message.content);
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isJsonObject(call)) continue;
    const fn = isJsonObject(call.function) ? call.function : call;
    parts.push({
      type: 'tool_call',
      id: asText(call.id ?? ''),
      name: asText(fn.name ?? ''),
      arguments: fn.arguments,
    });
  }
  if (role === 'tool' && message.tool_call_id !== undefined) {
    return {
      role,
      parts: [{ type: 'tool_result', id: asText(message.tool_call_id), content: message.content }],
    };
  }
  return { role, parts };
}

/** An array of messages, a single message, or plain text as messages of `role`. */
export function messagesOf(value: unknown, role = 'user'): Message[] {
  if (Array.isArray(value)) return value.map(openAIMessage);
  if (isJsonObject(value) && Array.isArray(value.messages)) return value.messages.map(openAIMessage);
  if (isJsonObject(value) && (value.role !== undefined || value.content !== undefined))
    return [openAIMessage(value)];
  if (value === undefined || value === null) return [];
  return [{ role, parts: textParts(typeof value === 'string' ? value : asText(value)) }];
}
