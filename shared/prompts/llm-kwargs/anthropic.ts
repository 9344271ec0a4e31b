/** `llm_kwargs` for Anthropic Messages. */
import type { JsonObject as Json } from '#shared/platform/json.ts';
import {
  asList,
  builtInsFor,
  type Choice,
  type Conversation,
  compact,
  emptySchema,
  isImage,
  isSystem,
  mergeToolResults,
  obj,
  type Part,
  parseArguments,
  pickParams,
  responseFormat,
  systemText,
  type Turn,
} from './conversation.ts';

/** Anthropic requires `max_tokens`; used when the parameters do not set one. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

const ANTHROPIC_PARAMS = new Set([
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'thinking',
  'service_tier',
  'output_config',
]);
const ANTHROPIC_ALIASES = {
  max_completion_tokens: 'max_tokens',
  max_output_tokens: 'max_tokens',
  stop: 'stop_sequences',
};
/** Server and client tools Anthropic defines; `config` may override the (versioned) type. */
const ANTHROPIC_BUILT_INS = new Map([
  ['web_search', { type: 'web_search_20250305', name: 'web_search' }],
  ['bash', { type: 'bash_20250124', name: 'bash' }],
  ['text_editor', { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }],
]);

export function toAnthropic(model: string, conversation: Conversation, params: Json): Json {
  const { turns, functions, builtIns, choice } = conversation;
  const picked = pickParams(params, ANTHROPIC_PARAMS, ANTHROPIC_ALIASES);
  const body: Json = compact({
    model,
    max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...picked,
    stop_sequences: picked.stop_sequences === undefined ? undefined : asList(picked.stop_sequences),
    system: systemText(turns.filter(isSystem)) || undefined,
    messages: mergeToolResults(turns, anthropicContent).map(([role, content]) => ({ role, content })),
  });

  const format = responseFormat(params.response_format);
  if (format?.type === 'json_schema') {
    body.output_config = {
      ...obj(body.output_config),
      format: { type: 'json_schema', schema: format.schema },
    };
  }

  const tools = [
    ...functions.map((fn) =>
      compact({ name: fn.name, description: fn.description, input_schema: fn.parameters ?? emptySchema() }),
    ),
    ...builtInsFor(builtIns, 'anthropic').flatMap((tool) => {
      const known = ANTHROPIC_BUILT_INS.get(tool.type);
      return known ? [{ ...known, ...tool.config }] : [];
    }),
  ];
  if (tools.length) {
    body.tools = tools;
    const parallelOff = params.parallel_tool_calls === false;
    const effective = choice ?? (parallelOff ? 'auto' : undefined);
    if (effective) {
      body.tool_choice = {
        ...anthropicChoice(effective),
        ...(parallelOff && effective !== 'none' ? { disable_parallel_tool_use: true } : {}),
      };
    }
  }
  return body;
}

function anthropicChoice(choice: Choice): Json {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

function anthropicContent(turn: Turn): Json[] {
  const blocks = turn.parts.flatMap((part) => anthropicBlock(part, turn.role));
  if (turn.role === 'tool') {
    return [
      compact({ type: 'tool_result', tool_use_id: turn.callId, content: blocks.length ? blocks : undefined }),
    ];
  }
  return [
    ...blocks,
    ...turn.calls.map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: parseArguments(call),
    })),
  ];
}

function anthropicBlock(part: Part, role: Turn['role']): Json[] {
  switch (part.kind) {
    case 'text':
      return [{ type: 'text', text: part.text }];
    case 'thinking':
      // Anthropic rejects thinking it did not sign.
      return role === 'assistant' && part.signature
        ? [{ type: 'thinking', thinking: part.thinking, signature: part.signature }]
        : [];
    case 'media': {
      if (role === 'assistant') return [];
      const source = part.data
        ? { type: 'base64', media_type: part.mime, data: part.data }
        : { type: 'url', url: part.url };
      if (isImage(part)) return [{ type: 'image', source }];
      return part.mime === 'application/pdf' ? [{ type: 'document', source }] : [];
    }
  }
}
