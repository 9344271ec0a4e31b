import { isJsonObject as isObject } from '#shared/platform/json.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

/**
 * Values the filters derive from a record's blueprints (texts, tool calls, parsed output JSON), each
 * computed on first use. One view serves every predicate that reads the record, so a derived value is
 * computed at most once per record evaluation (see viewOf); records must not be mutated while filtered.
 */
export class RecordView {
  #inputText: string | undefined;
  #outputText: string | undefined;
  #inputLower: string | undefined;
  #outputLower: string | undefined;
  #tools: { called: boolean; names: string[] } | undefined;
  #outputJsonDone = false;
  #outputJson: unknown;
  #outputKeys: string[] | undefined;
  #metadataKeys: string[] | undefined;
  #inputVariableKeys: string[] | undefined;

  readonly record: RequestLogRecord;

  constructor(record: RequestLogRecord) {
    this.record = record;
  }

  get inputText(): string {
    this.#inputText ??= blueprintText(this.record.input);
    return this.#inputText;
  }

  get outputText(): string {
    this.#outputText ??= blueprintText(this.record.output);
    return this.#outputText;
  }

  get inputLower(): string {
    this.#inputLower ??= this.inputText.toLowerCase();
    return this.#inputLower;
  }

  get outputLower(): string {
    this.#outputLower ??= this.outputText.toLowerCase();
    return this.#outputLower;
  }

  get isToolCall(): boolean {
    this.#tools ??= toolCalls(this.record.output);
    return this.#tools.called;
  }

  get toolNames(): string[] {
    this.#tools ??= toolCalls(this.record.output);
    return this.#tools.names;
  }

  /** The output text parsed as JSON when it is an object or array; otherwise undefined. */
  get outputJson(): unknown {
    if (!this.#outputJsonDone) {
      this.#outputJson = parseJsonContainer(this.outputText);
      this.#outputJsonDone = true;
    }
    return this.#outputJson;
  }

  get isJson(): boolean {
    return this.outputJson !== undefined;
  }

  get outputKeys(): string[] {
    this.#outputKeys ??= objectKeys(this.outputJson);
    return this.#outputKeys;
  }

  get metadataKeys(): string[] {
    this.#metadataKeys ??= Object.keys(this.record.metadata);
    return this.#metadataKeys;
  }

  get inputVariableKeys(): string[] {
    this.#inputVariableKeys ??= Object.keys(this.record.prompt_input_variables);
    return this.#inputVariableKeys;
  }
}

// The view of the record being evaluated. A filter reads one record at a time, in every predicate, and
// callers stream records that are evaluated once, so remembering the last one gives "at most once per
// record" without a WeakMap, whose insertions (ephemerons) would cost more than deriving the texts.
let last: RecordView | undefined;

export function viewOf(record: RequestLogRecord): RecordView {
  if (last === undefined || last.record !== record) last = new RecordView(record);
  return last;
}

/** Calls `visit` with every message of a chat blueprint, or with a completion blueprint (it has `content` too). */
function eachContentHolder(
  blueprint: Record<string, unknown>,
  visit: (holder: Record<string, unknown>) => void,
): void {
  const messages = blueprint.messages;
  if (!Array.isArray(messages)) visit(blueprint);
  else for (const message of messages) if (isObject(message)) visit(message);
}

const addLine = (text: string, line: string) => (text === '' ? line : `${text}\n${line}`);

/** Text blocks of every message (or of a completion), one per line. Stored data may predate the
 * array-of-blocks rule, so a plain string content counts as one text block. */
function blueprintText(blueprint: Record<string, unknown>): string {
  let text = '';
  eachContentHolder(blueprint, (holder) => {
    const content = holder.content;
    if (typeof content === 'string') text = addLine(text, content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (isObject(block) && block.type === 'text' && typeof block.text === 'string') {
          text = addLine(text, block.text);
        }
      }
    }
  });
  return text;
}

/** Content blocks that are a tool call by the model, and how to name the tool. Built-in tools without a
 * `name` field are named after the tool. */
const TOOL_BLOCKS: Record<string, (block: Record<string, unknown>) => unknown> = {
  tool_use: (b) => b.name,
  server_tool_use: (b) => b.name,
  function_call: (b) => b.name,
  mcp_call: (b) => b.name,
  shell_call: () => 'shell',
  apply_patch_call: () => 'apply_patch',
};

function toolCalls(output: Record<string, unknown>): { called: boolean; names: string[] } {
  let called = false;
  const names = new Set<string>();
  const add = (name: unknown) => {
    called = true;
    if (typeof name === 'string' && name !== '') names.add(name);
  };
  eachContentHolder(output, (holder) => {
    if (Array.isArray(holder.tool_calls)) {
      for (const call of holder.tool_calls) {
        if (isObject(call)) add(isObject(call.function) ? call.function.name : call.name);
      }
    }
    if (isObject(holder.function_call)) add(holder.function_call.name);
    if (Array.isArray(holder.content)) {
      for (const block of holder.content) {
        if (!isObject(block) || typeof block.type !== 'string') continue;
        const name = Object.hasOwn(TOOL_BLOCKS, block.type) ? TOOL_BLOCKS[block.type] : undefined;
        if (name) add(name(block));
      }
    }
  });
  return { called, names: [...names] };
}

/** Strict: the whole trimmed text must be a JSON object or array (no code fences, no prose around it). */
function parseJsonContainer(text: string): unknown {
  const trimmed = text.trim();
  const first = trimmed[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function objectKeys(value: unknown): string[] {
  return isObject(value) ? Object.keys(value) : [];
}
