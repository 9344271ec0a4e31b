/** `llm_kwargs` for OpenAI Chat Completions. */
import type { JsonObject as Json } from '#shared/platform/json.ts';
import type { FunctionDefinition } from './blueprint.ts';
import { type Conversation, compact, isImage, mediaUrl, omit, type Part, type Turn } from './conversation.ts';

export function toChatCompletions(model: string, conversation: Conversation, params: Json): Json {
  const body: Json = {
    model,
    ...omit(params, ['model', 'messages', 'tools', 'tool_choice', 'functions', 'function_call']),
    messages: conversation.turns.map(chatMessage),
  };
  const { functions, choice } = conversation;
  // Chat Completions has no hosted tools, and tool_choice without tools is an error there.
  if (functions.length) {
    body.tools = functions.map((fn) => ({ type: 'function', function: functionSpec(fn) }));
    if (choice)
      body.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  return body;
}

function chatMessage(turn: Turn): Json {
  const content = turn.parts.flatMap((part) => chatPart(part, turn.role === 'user'));
  if (turn.role === 'tool')
    return { role: 'tool', tool_call_id: turn.callId, content: content.length ? content : '' };
  const message: Json = compact({
    role: turn.role,
    content: content.length ? content : turn.role === 'assistant' ? null : '',
    name: turn.name,
  });
  if (turn.calls.length) {
    message.tool_calls = turn.calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return message;
}

/** Only user messages take media; OpenAI keeps reasoning server-side, so thinking is not sent back. */
function chatPart(part: Part, acceptsMedia: boolean): Json[] {
  if (part.kind === 'text') return [{ type: 'text', text: part.text }];
  if (part.kind === 'thinking' || !acceptsMedia) return [];
  if (isImage(part))
    return [{ type: 'image_url', image_url: compact({ url: mediaUrl(part), detail: part.detail }) }];
  return part.data
    ? [{ type: 'file', file: compact({ filename: part.filename, file_data: mediaUrl(part) }) }]
    : [];
}

const functionSpec = (fn: FunctionDefinition) =>
  compact({ name: fn.name, description: fn.description, parameters: fn.parameters, strict: fn.strict });
