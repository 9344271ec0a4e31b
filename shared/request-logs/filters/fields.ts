import { viewOf } from '#shared/request-logs/filters/record-view.ts';
import { LOG_STATUSES, type RequestLogRecord } from '#shared/request-logs/record.ts';

export type FieldKind = 'string' | 'text' | 'number' | 'time' | 'boolean' | 'array' | 'nested';

/** The operators each kind of field accepts (the filter table in docs/request-logs.md); any other pair is a 422. */
export const OPERATORS: Record<FieldKind, readonly string[]> = {
  string: ['is', 'is_not', 'in', 'not_in'],
  text: ['contains', 'not_contains', 'starts_with', 'ends_with'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'is_null', 'is_not_null'],
  time: ['is', 'before', 'after', 'between'],
  boolean: ['is_true', 'is_false'],
  array: ['contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'],
  nested: ['key_equals', 'key_not_equals', 'key_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'],
};

/** Which scan hint a condition on the field can feed (see CompiledFilter.hints). */
export type HintKind = 'startTime' | 'promptIds' | 'statuses' | 'tags';

type Get<T> = (record: RequestLogRecord) => T;

/** `cost` orders the operands of a group so cheap record fields are tested before derived text. */
export type FieldDef = { cost: number; hint?: HintKind } & (
  | { kind: 'string'; get: Get<string>; values?: readonly string[] }
  | { kind: 'text'; getLower: Get<string> }
  | { kind: 'number'; get: Get<number | null> }
  | { kind: 'time'; get: Get<number> }
  | { kind: 'boolean'; get: Get<boolean> }
  | { kind: 'array'; get: Get<readonly string[]> }
  | { kind: 'nested'; get: Get<unknown> }
);

export const STATUSES: readonly RequestLogRecord['status'][] = LOG_STATUSES;

const FIELD = 1;
const KEYS = 2;
const TEXT = 20;
const OUTPUT_JSON = 30;

/**
 * Public filter field -> what it reads on a RequestLogRecord.
 *
 * | field                 | kind    | record                                                             |
 * |-----------------------|---------|--------------------------------------------------------------------|
 * | pl_id                 | number  | id                                                                 |
 * | prompt_id             | number  | prompt_id (nullable)                                               |
 * | engine                | string  | model                                                              |
 * | provider_type         | string  | provider                                                           |
 * | input_text            | text    | text blocks of every input message (or completion content)         |
 * | output_text           | text    | same, of output                                                    |
 * | prompt_version_number | number  | prompt_version_number (nullable)                                   |
 * | input_tokens          | number  | input_tokens                                                       |
 * | output_tokens         | number  | output_tokens                                                      |
 * | cost                  | number  | price                                                              |
 * | latency_ms            | number  | request_end_time - request_start_time                              |
 * | request_start_time    | time    | request_start_time                                                 |
 * | request_end_time      | time    | request_end_time                                                   |
 * | status                | string  | status (SUCCESS, WARNING, ERROR, or RUNNING: a replay in progress) |
 * | is_json               | boolean | output text is a JSON object or array                              |
 * | is_tool_call          | boolean | output has tool_calls, function_call or tool-use content blocks   |
 * | is_plain_text         | boolean | neither is_json nor is_tool_call                                   |
 * | tags                  | array   | tags                                                               |
 * | metadata_keys         | array   | keys of metadata                                                   |
 * | metadata              | nested  | metadata                                                           |
 * | tool_names            | array   | names of the tools called in the output                            |
 * | output                | nested  | output text parsed as JSON                                         |
 * | output_keys           | array   | top-level keys of that JSON (an object's; none for an array)       |
 * | input_variables       | nested  | prompt_input_variables                                             |
 * | input_variable_keys   | array   | keys of prompt_input_variables                                     |
 * | group_id              | number  | group_id (nullable)                                                |
 * | replay_of             | number  | replay_of: the log a replay re-ran (null for other logs)           |
 */
export const FIELDS: Record<string, FieldDef> = {
  pl_id: { kind: 'number', cost: FIELD, get: (r) => r.id },
  prompt_id: { kind: 'number', cost: FIELD, hint: 'promptIds', get: (r) => r.prompt_id },
  engine: { kind: 'string', cost: FIELD, get: (r) => r.model },
  provider_type: { kind: 'string', cost: FIELD, get: (r) => r.provider },
  input_text: { kind: 'text', cost: TEXT, getLower: (r) => viewOf(r).inputLower },
  output_text: { kind: 'text', cost: TEXT, getLower: (r) => viewOf(r).outputLower },
  prompt_version_number: { kind: 'number', cost: FIELD, get: (r) => r.prompt_version_number },
  input_tokens: { kind: 'number', cost: FIELD, get: (r) => r.input_tokens },
  output_tokens: { kind: 'number', cost: FIELD, get: (r) => r.output_tokens },
  cost: { kind: 'number', cost: FIELD, get: (r) => r.price },
  latency_ms: { kind: 'number', cost: FIELD, get: (r) => r.request_end_time - r.request_start_time },
  request_start_time: { kind: 'time', cost: FIELD, hint: 'startTime', get: (r) => r.request_start_time },
  request_end_time: { kind: 'time', cost: FIELD, get: (r) => r.request_end_time },
  status: { kind: 'string', cost: FIELD, hint: 'statuses', values: STATUSES, get: (r) => r.status },
  is_json: { kind: 'boolean', cost: OUTPUT_JSON, get: (r) => viewOf(r).isJson },
  is_tool_call: { kind: 'boolean', cost: TEXT, get: (r) => viewOf(r).isToolCall },
  is_plain_text: {
    kind: 'boolean',
    cost: OUTPUT_JSON,
    get: (r) => {
      const view = viewOf(r);
      return !view.isToolCall && !view.isJson;
    },
  },
  tags: { kind: 'array', cost: FIELD, hint: 'tags', get: (r) => r.tags },
  metadata_keys: { kind: 'array', cost: KEYS, get: (r) => viewOf(r).metadataKeys },
  metadata: { kind: 'nested', cost: FIELD, get: (r) => r.metadata },
  tool_names: { kind: 'array', cost: TEXT, get: (r) => viewOf(r).toolNames },
  output: { kind: 'nested', cost: OUTPUT_JSON, get: (r) => viewOf(r).outputJson },
  output_keys: { kind: 'array', cost: OUTPUT_JSON, get: (r) => viewOf(r).outputKeys },
  input_variables: { kind: 'nested', cost: FIELD, get: (r) => r.prompt_input_variables },
  input_variable_keys: { kind: 'array', cost: KEYS, get: (r) => viewOf(r).inputVariableKeys },
  group_id: { kind: 'number', cost: FIELD, get: (r) => r.group_id ?? null },
  replay_of: { kind: 'number', cost: FIELD, get: (r) => r.replay_of ?? null },
};
