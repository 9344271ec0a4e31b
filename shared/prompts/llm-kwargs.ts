/**
 * `llm_kwargs` of GET /prompt-templates/{identifier}?include_llm_kwargs=true: a stored blueprint and its
 * model metadata turned into the request body of the provider's API, ready to send. Pure, no I/O.
 *
 * Targets: OpenAI Chat Completions (default for openai / azure-openai), OpenAI Responses (api_type
 * `responses`), OpenAI legacy Completions (completion templates), Anthropic Messages, Gemini generateContent.
 * The blueprint is first read into one provider-neutral conversation, then written out per provider.
 *
 * Decisions (PromptLayer documents `llm_kwargs` as provider-specific and subject to change without notice):
 * - Template variables stay unfilled, as in the raw read; placeholder messages are filled at run time,
 *   so they are dropped, as are media variables and provider-output blocks (tool results, code runs).
 * - OpenAI content keeps the array-of-parts form: it is lossless (several blocks, images) and every role
 *   accepts it, so one shape serves all messages.
 * - Parameters pass through verbatim for Chat Completions; every other target gets an allowlist plus
 *   renames, so OpenAI-only keys (penalties, logprobs, n, seed, ...) never leak into a foreign body.
 * - Deprecated `functions` / `function_call` are read as tools, so every target sees one tool model.
 * - Structured output (`response_format`): Responses `text.format`; Anthropic's GA `output_config.format`
 *   (native constrained decoding, no forced tool); Gemini `responseJsonSchema` (full JSON Schema, where
 *   `responseSchema` only takes an OpenAPI subset). `json_object` has no Anthropic equivalent and is dropped.
 * - Anthropic and Gemini: system messages go to `system` / `systemInstruction` wherever they stand,
 *   consecutive tool results merge into one user turn (parallel calls answer together), and messages
 *   left with nothing a provider can take are dropped rather than sent empty.
 */
import { invalid } from '#shared/platform/errors.ts';
import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';

// ---------------------------------------------------------------------------------------------------------
// Stored shapes (loose on purpose: zod-inferred blueprints and raw JSON both fit)

type Json = JsonObject;

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Json;
  strict?: boolean;
}

export interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
  [key: string]: unknown;
}

export interface ChatMessage {
  role: string;
  content?: ContentBlock[] | null;
  name?: string | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string;
  function_call?: { name: string; arguments: string } | null;
  [key: string]: unknown;
}

/** A function tool (`{type:'function', function}`) or a provider built-in (`{type:'web_search', config}`). */
export interface Tool {
  type: string;
  function?: FunctionDefinition;
  name?: string;
  provider?: string;
  config?: Json;
  [key: string]: unknown;
}

export type ToolChoice =
  | string
  | { type?: string; function?: { name: string }; name?: string; [key: string]: unknown };

interface BlueprintCommon {
  input_variables?: string[];
  template_format?: string;
  [key: string]: unknown;
}

export interface ChatBlueprint extends BlueprintCommon {
  type: 'chat';
  messages: ChatMessage[];
  tools?: Tool[] | null;
  tool_choice?: ToolChoice | null;
  functions?: FunctionDefinition[] | null;
  function_call?: ToolChoice | null;
}

export interface CompletionBlueprint extends BlueprintCommon {
  type: 'completion';
  content: ContentBlock[];
}

/** PromptLayer's Prompt Blueprint. */
export type PromptBlueprint = ChatBlueprint | CompletionBlueprint;

/** `metadata.model` of a prompt version. */
export interface ModelMetadata {
  provider?: string | null;
  name?: string | null;
  parameters?: Json | null;
  api_type?: string | null;
  base_model?: string | null;
  display_params?: Json | null;
  model_config_display_name?: string | null;
  [key: string]: unknown;
}

/** Anthropic requires `max_tokens`; used when the parameters do not set one. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

const LOC = ['query', 'include_llm_kwargs'];

/** A blueprint and model that cannot be turned into a provider request; `renderLlmKwargs` makes it a 422. */
export class LlmKwargsError extends Error {
  override name = 'LlmKwargsError';
}

const unrenderable = (message: string) => new LlmKwargsError(message);

export interface LlmKwargsOptions {
  /** Where a 422 points (default `query.include_llm_kwargs`). */
  loc?: (string | number)[];
  /** `model_parameter_overrides`: merged into the parameters under the target's names (OVERRIDE_NAMES). */
  overrides?: Json | null;
}

/** The provider request body; a 422 at `options.loc` when it cannot be built. */
export function renderLlmKwargs(
  blueprint: PromptBlueprint,
  model: ModelMetadata | undefined | null,
  options: LlmKwargsOptions = {},
): Json {
  try {
    return buildLlmKwargs(blueprint, model, options.overrides);
  } catch (error) {
    if (error instanceof LlmKwargsError) throw invalid(options.loc ?? LOC, error.message);
    throw error;
  }
}

/** The provider request body; throws LlmKwargsError when it cannot be built. */
export function buildLlmKwargs(
  blueprint: PromptBlueprint,
  model: ModelMetadata | undefined | null,
  overrides?: Json | null,
): Json {
  if (!model?.provider || !model.name) throw unrenderable('the template has no model metadata');
  const target = targetOf(model.provider, model.api_type);
  const params = withOverrides(model.parameters ?? {}, overrides, target);
  if (blueprint.type === 'completion' && (target === 'chat-completions' || target === 'completions')) {
    return {
      model: model.name,
      ...omit(params, ['model', 'prompt']),
      prompt: textOf(toParts(blueprint.content)),
    };
  }
  if (target === 'completions')
    throw unrenderable('a chat template cannot be rendered for the completions API');
  const conversation = blueprint.type === 'chat' ? fromChat(blueprint) : fromCompletion(blueprint);
  switch (target) {
    case 'chat-completions':
      return toChatCompletions(model.name, conversation, params);
    case 'responses':
      return toResponses(model.name, conversation, params);
    case 'anthropic':
      return toAnthropic(model.name, conversation, params);
    case 'gemini':
      return toGemini(model.name, conversation, params);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Targets

type Family = 'openai' | 'anthropic' | 'google';
type Target = 'chat-completions' | 'completions' | 'responses' | 'anthropic' | 'gemini';

const FAMILIES = new Map<string, Family>([
  ['openai', 'openai'],
  ['azure-openai', 'openai'],
  ['openai.azure', 'openai'],
  ['anthropic', 'anthropic'],
  ['google', 'google'],
  ['gemini', 'google'],
  ['vertexai', 'google'],
]);

const familyOf = (provider: string) => FAMILIES.get(provider.toLowerCase());

/** Whether two provider names take the same request shape (openai and azure-openai do). */
export const sameFamily = (a: string, b: string) => {
  const family = familyOf(a);
  return family !== undefined && family === familyOf(b);
};

/** The `api_type` a provider's requests take by default: Chat Completions for OpenAI's, none for others. */
export const defaultApiType = (provider: string) =>
  familyOf(provider) === 'openai' ? 'chat-completions' : null;

function targetOf(provider: string, apiType: string | null | undefined): Target {
  const family = familyOf(provider);
  if (family === 'anthropic') return 'anthropic';
  if (family === 'google') return 'gemini';
  if (!family) {
    throw unrenderable(
      `provider "${provider}" is not supported; llm_kwargs render for ${[...FAMILIES.keys()].join(', ')}`,
    );
  }
  // The OpenAPI example spells it `chat.completions`, PromptLayer's UI `chat-completions`.
  switch (apiType?.toLowerCase().replace(/[._]/g, '-') || 'chat-completions') {
    case 'chat-completions':
      return 'chat-completions';
    case 'completions':
      return 'completions';
    case 'responses':
      return 'responses';
    default:
      throw unrenderable(
        `api_type "${apiType}" is not supported; use chat-completions, completions or responses`,
      );
  }
}

// ---------------------------------------------------------------------------------------------------------
// model_parameter_overrides

/**
 * The parameters an override may name in any provider's spelling, and their name per target (null: the
 * target has no such parameter and the override is dropped). Every other override key is merged as
 * given, like a stored parameter: Chat Completions and Completions take it verbatim, the other targets
 * keep only the parameters they know.
 */
export const OVERRIDE_NAMES: Readonly<
  Record<string, { spellings: readonly string[]; to: Record<Target, string | null> }>
> = {
  max_tokens: {
    spellings: [
      'maxOutputTokens',
      'max_output_tokens',
      'maxTokens',
      'max_tokens',
      'max_completion_tokens',
      'maxCompletionTokens',
    ],
    to: {
      'chat-completions': 'max_completion_tokens',
      completions: 'max_tokens',
      responses: 'max_output_tokens',
      anthropic: 'max_tokens',
      gemini: 'maxOutputTokens',
    },
  },
  temperature: {
    spellings: ['temperature'],
    to: {
      'chat-completions': 'temperature',
      completions: 'temperature',
      responses: 'temperature',
      anthropic: 'temperature',
      gemini: 'temperature',
    },
  },
  top_p: {
    spellings: ['topP', 'top_p'],
    to: {
      'chat-completions': 'top_p',
      completions: 'top_p',
      responses: 'top_p',
      anthropic: 'top_p',
      gemini: 'topP',
    },
  },
  top_k: {
    spellings: ['topK', 'top_k'],
    to: { 'chat-completions': null, completions: null, responses: null, anthropic: 'top_k', gemini: 'topK' },
  },
  stop: {
    spellings: ['stop', 'stopSequences', 'stop_sequences'],
    to: {
      'chat-completions': 'stop',
      completions: 'stop',
      responses: null,
      anthropic: 'stop_sequences',
      gemini: 'stopSequences',
    },
  },
  frequency_penalty: {
    spellings: ['frequencyPenalty', 'frequency_penalty'],
    to: {
      'chat-completions': 'frequency_penalty',
      completions: 'frequency_penalty',
      responses: null,
      anthropic: null,
      gemini: 'frequencyPenalty',
    },
  },
  presence_penalty: {
    spellings: ['presencePenalty', 'presence_penalty'],
    to: {
      'chat-completions': 'presence_penalty',
      completions: 'presence_penalty',
      responses: null,
      anthropic: null,
      gemini: 'presencePenalty',
    },
  },
  seed: {
    spellings: ['seed'],
    to: { 'chat-completions': 'seed', completions: 'seed', responses: null, anthropic: null, gemini: 'seed' },
  },
};

const OVERRIDE_BY_SPELLING = new Map(
  Object.values(OVERRIDE_NAMES).flatMap((entry) =>
    entry.spellings.map((spelling) => [spelling, entry] as const),
  ),
);

/** The stored parameters with the overrides merged in; a known parameter replaces all its spellings. */
function withOverrides(params: Json, overrides: Json | null | undefined, target: Target): Json {
  if (!overrides) return params;
  const merged: Json = { ...params };
  for (const [key, value] of Object.entries(overrides)) {
    const known = OVERRIDE_BY_SPELLING.get(key);
    if (!known) {
      merged[key] = value;
      continue;
    }
    for (const spelling of known.spellings) delete merged[spelling];
    const name = known.to[target];
    if (name) merged[name] = value;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------------------
// The provider-neutral conversation

type Part =
  | { kind: 'text'; text: string; thoughtSignature?: string }
  | { kind: 'thinking'; thinking: string; signature?: string }
  /** Exactly one of url / data (base64). */
  | { kind: 'media'; mime: string; url?: string; data?: string; detail?: string; filename?: string };

type MediaPart = Extract<Part, { kind: 'media' }>;

interface Call {
  id: string;
  name: string;
  arguments: string;
}

interface Turn {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  parts: Part[];
  name?: string;
  calls: Call[];
  /** Tool turns: the call answered. */
  callId?: string;
}

type Choice = 'auto' | 'none' | 'required' | { name: string };

interface Conversation {
  turns: Turn[];
  functions: FunctionDefinition[];
  builtIns: Tool[];
  choice?: Choice;
}

function fromChat(blueprint: ChatBlueprint): Conversation {
  // Deprecated function_call / function messages carry no ids: pair them by function name.
  const pending = new Map<string, string>();
  const turns = blueprint.messages.flatMap((message, index): Turn[] => {
    const parts = toParts(message.content);
    const name = message.name ?? undefined;
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user':
        return [{ role: message.role, parts, name, calls: [] }];
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((call) => ({ id: call.id, ...call.function }));
        if (message.function_call) {
          const id = `call_${index}`;
          pending.set(message.function_call.name, id);
          calls.push({ id, ...message.function_call });
        }
        return [{ role: 'assistant', parts, name, calls }];
      }
      case 'tool':
        return [{ role: 'tool', parts, name, calls: [], callId: message.tool_call_id }];
      case 'function':
        return [{ role: 'tool', parts, name, calls: [], callId: pending.get(name ?? '') ?? `call_${index}` }];
      case 'placeholder':
        return [];
      default:
        throw unrenderable(`message role "${message.role}" cannot be rendered`);
    }
  });
  const functions: FunctionDefinition[] = [];
  const builtIns: Tool[] = [];
  for (const tool of blueprint.tools ?? []) {
    if (tool.type === 'function' && tool.function) functions.push(tool.function);
    else builtIns.push(tool);
  }
  if (!blueprint.tools?.length) functions.push(...(blueprint.functions ?? []));
  return { turns, functions, builtIns, choice: toChoice(blueprint.tool_choice ?? blueprint.function_call) };
}

/** Message APIs take a completion template as one user message. */
function fromCompletion(blueprint: CompletionBlueprint): Conversation {
  return {
    turns: [{ role: 'user', parts: toParts(blueprint.content), calls: [] }],
    functions: [],
    builtIns: [],
  };
}

function toChoice(choice: ToolChoice | null | undefined): Choice | undefined {
  if (choice == null) return undefined;
  if (typeof choice === 'string') {
    if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
    if (choice === 'any') return 'required';
    throw unrenderable(`tool_choice "${choice}" is not supported`);
  }
  const name = choice.function?.name ?? choice.name;
  if (!name) throw unrenderable('tool_choice names no function');
  return { name };
}

function toParts(blocks: ContentBlock[] | null | undefined): Part[] {
  return (blocks ?? []).flatMap((block): Part[] => {
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') return [];
        return [compact({ kind: 'text', text: block.text, thoughtSignature: str(block.thought_signature) })];
      case 'thinking': {
        const thinking = str(block.thinking);
        return thinking === undefined
          ? []
          : [compact({ kind: 'thinking', thinking, signature: str(block.signature) })];
      }
      case 'image_url': {
        const image = obj(block.image_url);
        const url = str(image?.url);
        return url ? [media(url, guessMime(url), { detail: str(image?.detail) })] : [];
      }
      case 'media': {
        const m = obj(block.media);
        const url = str(m?.url);
        if (!url) return [];
        const mime = str(m?.type) ?? guessMime(url);
        const filename = str(m?.title);
        if (m?.format === 'base64' && !url.startsWith('data:'))
          return [compact({ kind: 'media', mime, data: url, filename })];
        return [media(url, mime, { filename })];
      }
      default:
        return [];
    }
  });
}

function media(url: string, mime: string, extra: { detail?: string; filename?: string }): Part {
  const inline = /^data:([^;,]+)[^,]*;base64,(.*)$/s.exec(url);
  if (inline) return compact({ kind: 'media', mime: inline[1] ?? mime, data: inline[2], ...extra });
  return compact({ kind: 'media', mime, url, ...extra });
}

const MIME_BY_EXTENSION = new Map([
  ['png', 'image/png'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['pdf', 'application/pdf'],
]);

/** Gemini needs a MIME type for a URL; JPEG is the blueprint's own default for media. */
function guessMime(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return MIME_BY_EXTENSION.get(ext) ?? 'image/jpeg';
}

const mediaUrl = (part: MediaPart) => part.url ?? `data:${part.mime};base64,${part.data}`;
const isImage = (part: MediaPart) => part.mime.startsWith('image/');
const isSystem = (turn: Turn) => turn.role === 'system' || turn.role === 'developer';

const textOf = (parts: Part[]) => parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
const systemText = (turns: Turn[]) =>
  turns
    .map((turn) => textOf(turn.parts))
    .filter(Boolean)
    .join('\n\n');

/** Anthropic and Gemini take tool-call arguments as an object; the blueprint stores a JSON string. */
function parseArguments(call: Call): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments || '{}');
  } catch {
    parsed = undefined;
  }
  const args = obj(parsed);
  if (!args) throw unrenderable(`the arguments of tool call "${call.id}" are not a JSON object`);
  return args;
}

/** Built-in tools are provider-native: one configured for another provider is not carried. */
const builtInsFor = (tools: Tool[], family: Family) =>
  tools.filter((tool) => !tool.provider || familyOf(tool.provider) === family);

type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; schema: Json; strict?: boolean; description?: string };

/** `parameters.response_format` as OpenAI spells it; `text` (the default) is no format at all. */
function responseFormat(value: unknown): ResponseFormat | undefined {
  const format = obj(value);
  if (format?.type === 'json_object') return { type: 'json_object' };
  const spec = obj(format?.json_schema);
  const schema = obj(spec?.schema);
  if (format?.type !== 'json_schema' || !schema) return undefined;
  return compact<ResponseFormat>({
    type: 'json_schema',
    name: str(spec?.name),
    schema,
    strict: typeof spec?.strict === 'boolean' ? spec.strict : undefined,
    description: str(spec?.description),
  });
}

const emptySchema = (): Json => ({ type: 'object', properties: {} });

// ---------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

function toChatCompletions(model: string, conversation: Conversation, params: Json): Json {
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

// ---------------------------------------------------------------------------------------------------------
// OpenAI Responses

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

function toResponses(model: string, conversation: Conversation, params: Json): Json {
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

// ---------------------------------------------------------------------------------------------------------
// Anthropic Messages

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

function toAnthropic(model: string, conversation: Conversation, params: Json): Json {
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

// ---------------------------------------------------------------------------------------------------------
// Gemini generateContent

const GEMINI_GENERATION = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
  'mediaResolution',
]);
const GEMINI_ALIASES = {
  max_tokens: 'maxOutputTokens',
  max_completion_tokens: 'maxOutputTokens',
  stop: 'stopSequences',
  n: 'candidateCount',
};
const GEMINI_BUILT_INS = new Map([
  ['web_search', 'googleSearch'],
  ['code_interpreter', 'codeExecution'],
  ['url_context', 'urlContext'],
  ['google_maps', 'googleMaps'],
]);
const GEMINI_MODES = { auto: 'AUTO', none: 'NONE', required: 'ANY' } as const;

function toGemini(model: string, conversation: Conversation, params: Json): Json {
  const { turns, functions, builtIns, choice } = conversation;
  const systemParts = turns
    .filter(isSystem)
    .flatMap((turn) => turn.parts.flatMap((part) => geminiPart(part, 'system')));
  const callNames = new Map<string, string>();
  const contents = mergeToolResults(turns, (turn) => geminiParts(turn, callNames)).map(([role, parts]) => ({
    role: role === 'assistant' ? 'model' : 'user',
    parts,
  }));

  const config = pickParams(params, GEMINI_GENERATION, GEMINI_ALIASES, camelCase);
  if (config.stopSequences !== undefined) config.stopSequences = asList(config.stopSequences);
  const format = responseFormat(params.response_format);
  if (format) config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') config.responseJsonSchema = format.schema;

  const tools: Json[] = [];
  if (functions.length) {
    tools.push({
      functionDeclarations: functions.map((fn) =>
        // parametersJsonSchema takes JSON Schema as stored; `parameters` only an OpenAPI subset.
        compact({ name: fn.name, description: fn.description, parametersJsonSchema: fn.parameters }),
      ),
    });
  }
  for (const tool of builtInsFor(builtIns, 'google')) {
    const key = GEMINI_BUILT_INS.get(tool.type);
    if (key) tools.push({ [key]: tool.config ?? {} });
  }

  return compact({
    model,
    contents,
    systemInstruction: systemParts.length ? { parts: systemParts } : undefined,
    generationConfig: Object.keys(config).length ? config : undefined,
    tools: tools.length ? tools : undefined,
    toolConfig: functions.length && choice ? { functionCallingConfig: geminiChoice(choice) } : undefined,
  });
}

function geminiChoice(choice: Choice): Json {
  if (typeof choice === 'string') return { mode: GEMINI_MODES[choice] };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function geminiParts(turn: Turn, callNames: Map<string, string>): Json[] {
  if (turn.role === 'tool') {
    const name = turn.name ?? callNames.get(turn.callId ?? '');
    if (!name) throw unrenderable(`tool message "${turn.callId}" answers no known tool call`);
    const text = textOf(turn.parts);
    // A structured response is passed as is; plain text goes under `output`, the key Gemini documents.
    return [{ functionResponse: { name, response: obj(tryParse(text)) ?? { output: text } } }];
  }
  for (const call of turn.calls) callNames.set(call.id, call.name);
  return [
    ...turn.parts.flatMap((part) => geminiPart(part, turn.role)),
    ...turn.calls.map((call) => ({ functionCall: { name: call.name, args: parseArguments(call) } })),
  ];
}

function geminiPart(part: Part, role: Turn['role']): Json[] {
  switch (part.kind) {
    case 'text':
      return [compact({ text: part.text, thoughtSignature: part.thoughtSignature })];
    case 'thinking':
      return [];
    case 'media':
      if (role !== 'user') return [];
      return part.data
        ? [{ inlineData: { mimeType: part.mime, data: part.data } }]
        : [{ fileData: { mimeType: part.mime, fileUri: part.url } }];
  }
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

/**
 * Non-system turns as [role, content] messages, for APIs that alternate user and assistant turns:
 * tool results become user content, consecutive tool results share one message, empty messages go.
 */
function mergeToolResults(turns: Turn[], render: (turn: Turn) => Json[]): ['user' | 'assistant', Json[]][] {
  const messages: ['user' | 'assistant', Json[]][] = [];
  let previous: Turn | undefined;
  for (const turn of turns) {
    if (isSystem(turn)) continue;
    const content = render(turn);
    if (!content.length) continue;
    const last = messages.at(-1);
    if (turn.role === 'tool' && previous?.role === 'tool' && last) last[1].push(...content);
    else messages.push([turn.role === 'assistant' ? 'assistant' : 'user', content]);
    previous = turn;
  }
  return messages;
}

/**
 * Keeps the allowed keys of `params` under their target names. `aliases` rename foreign spellings
 * (`stop` -> `stop_sequences`); a key already in the target's own spelling wins over an alias.
 */
function pickParams(
  params: Json,
  allowed: ReadonlySet<string>,
  aliases: Readonly<Record<string, string>>,
  rename: (key: string) => string = (key) => key,
): Json {
  const picked: Json = {};
  for (const [key, value] of Object.entries(params)) {
    if (value == null) continue;
    const alias = Object.hasOwn(aliases, key) ? aliases[key] : undefined;
    const target = alias ?? rename(key);
    if (!allowed.has(target) || (alias && target in picked)) continue;
    picked[target] = value;
  }
  return picked;
}

const camelCase = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const asList = (value: unknown) => (Array.isArray(value) ? value : [value]);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

const obj = (value: unknown): Json | undefined => (isJsonObject(value) ? value : undefined);

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function omit(source: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key)));
}

/** Drops keys whose value is undefined, so optional fields are absent rather than `undefined`. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
