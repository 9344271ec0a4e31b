/** `llm_kwargs` for OpenAI Responses. */
import type { JsonObject as Json } from '#shared/platform/json.ts';
import {
  builtInsFor,
  type Conversation,
  compact,
  emptySchema,
  isImage,
  isSystem,
  mediaUrl,
  obj,
  type Part,
  pickParams,
  responseFormat,
  str,
  systemText,
  type Turn,
  textOf,
} from './conversation.ts';

const RESPONSES_PARAMS = new Set([
  'temperature',
  'top_p',
  'max_output_tokens',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'store',
  'metadata',
  'user',
  'service_tier',
  'truncation',
  'include',
  'top_logprobs',
  'max_tool_calls',
  'prompt_cache_key',
  'safety_identifier',
  'background',
]);
const RESPONSES_ALIASES = { max_tokens: 'max_output_tokens', max_completion_tokens: 'max_output_tokens' };
const RESPONSES_BUILT_INS = new Set([
  'web_search',
  'file_search',
  'code_interpreter',
  'image_generation',
  'mcp',
  'shell',
  'apply_patch',
]);

export function toResponses(model: string, conversation: Conversation, params: Json): Json {
  const { turns, functions, builtIns, choice } = conversation;
  // The leading system run is what `instructions` means; later system messages keep their place in input.
  const lead = turns.findIndex((turn) => !isSystem(turn));
  const split = lead === -1 ? turns.length : lead;
  const body: Json = compact({
    model,
    ...pickParams(params, RESPONSES_PARAMS, RESPONSES_ALIASES),
    instructions: systemText(turns.slice(0, split)) || undefined,
    input: turns.slice(split).flatMap(responsesItems),
  });

  const effort = str(params.reasoning_effort);
  if (effort) body.reasoning = { ...obj(body.reasoning), effort };
  const format = responseFormat(params.response_format);
  const verbosity = str(params.verbosity);
  if (format || verbosity) body.text = { ...obj(body.text), ...compact({ format, verbosity }) };

  const tools = [
    ...functions.map((fn) =>
      compact({
        type: 'function',
        name: fn.name,
        description: fn.description,
        parameters: fn.parameters ?? emptySchema(),
        // Responses defaults `strict` to true; the blueprint's default is false.
        strict: fn.strict ?? false,
      }),
    ),
    ...builtInsFor(builtIns, 'openai')
      .filter((tool) => RESPONSES_BUILT_INS.has(tool.type))
      .map((tool) => ({ type: tool.type, ...tool.config })),
  ];
  if (tools.length) {
    body.tools = tools;
    if (choice)
      body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
  }
  return body;
}

function responsesItems(turn: Turn): Json[] {
  switch (turn.role) {
    case 'tool':
      return [{ type: 'function_call_output', call_id: turn.callId, output: textOf(turn.parts) }];
    case 'assistant': {
      const content = turn.parts.flatMap((part) =>
        part.kind === 'text' ? [{ type: 'output_text', text: part.text }] : [],
      );
      return [
        ...(content.length ? [{ role: 'assistant', content }] : []),
        ...turn.calls.map((call) => ({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        })),
      ];
    }
    default:
      return [
        { role: turn.role, content: turn.parts.flatMap((part) => responsesPart(part, turn.role === 'user')) },
      ];
  }
}

function responsesPart(part: Part, acceptsMedia: boolean): Json[] {
  if (part.kind === 'text') return [{ type: 'input_text', text: part.text }];
  if (part.kind === 'thinking' || !acceptsMedia) return [];
  if (isImage(part))
    return [{ type: 'input_image', image_url: mediaUrl(part), detail: part.detail ?? 'auto' }];
  if (part.url) return [{ type: 'input_file', file_url: part.url }];
  return [compact({ type: 'input_file', filename: part.filename, file_data: mediaUrl(part) })];
}
