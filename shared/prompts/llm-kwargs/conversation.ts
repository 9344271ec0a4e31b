/**
 * The provider-neutral conversation a blueprint is read into before it is written out per target, and the
 * helpers the targets share.
 */
import { isJsonObject, type JsonObject as Json } from '#shared/platform/json.ts';
import {
  type ChatBlueprint,
  type CompletionBlueprint,
  type ContentBlock,
  type FunctionDefinition,
  type Tool,
  type ToolChoice,
  unrenderable,
} from './blueprint.ts';
import { type Family, familyOf } from './targets.ts';

export type Part =
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

export interface Turn {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  parts: Part[];
  name?: string;
  calls: Call[];
  /** Tool turns: the call answered. */
  callId?: string;
}

export type Choice = 'auto' | 'none' | 'required' | { name: string };

export interface Conversation {
  turns: Turn[];
  functions: FunctionDefinition[];
  builtIns: Tool[];
  choice?: Choice;
}

export function fromChat(blueprint: ChatBlueprint): Conversation {
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
export function fromCompletion(blueprint: CompletionBlueprint): Conversation {
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

export function toParts(blocks: ContentBlock[] | null | undefined): Part[] {
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

export const mediaUrl = (part: MediaPart) => part.url ?? `data:${part.mime};base64,${part.data}`;
export const isImage = (part: MediaPart) => part.mime.startsWith('image/');
export const isSystem = (turn: Turn) => turn.role === 'system' || turn.role === 'developer';

export const textOf = (parts: Part[]) =>
  parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
export const systemText = (turns: Turn[]) =>
  turns
    .map((turn) => textOf(turn.parts))
    .filter(Boolean)
    .join('\n\n');

/** Anthropic and Gemini take tool-call arguments as an object; the blueprint stores a JSON string. */
export function parseArguments(call: Call): Json {
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
export const builtInsFor = (tools: Tool[], family: Family) =>
  tools.filter((tool) => !tool.provider || familyOf(tool.provider) === family);

type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; schema: Json; strict?: boolean; description?: string };

/** `parameters.response_format` as OpenAI spells it; `text` (the default) is no format at all. */
export function responseFormat(value: unknown): ResponseFormat | undefined {
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

export const emptySchema = (): Json => ({ type: 'object', properties: {} });

/**
 * Non-system turns as [role, content] messages, for APIs that alternate user and assistant turns:
 * tool results become user content, consecutive tool results share one message, empty messages go.
 */
export function mergeToolResults(
  turns: Turn[],
  render: (turn: Turn) => Json[],
): ['user' | 'assistant', Json[]][] {
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
export function pickParams(
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

export const asList = (value: unknown) => (Array.isArray(value) ? value : [value]);
export const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

export const obj = (value: unknown): Json | undefined => (isJsonObject(value) ? value : undefined);

export function omit(source: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key)));
}

/** Drops keys whose value is undefined, so optional fields are absent rather than `undefined`. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
