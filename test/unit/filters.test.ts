import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import {
  compileFilter,
  type Filter,
  type FilterGroup,
  FilterGroupSchema,
  MAX_FILTERS,
  MAX_GROUP_DEPTH,
  MAX_LIST_ITEMS,
} from '#shared/request-logs/filters.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

const T0 = Date.UTC(2024, 4, 1, 12, 0, 0, 250); // 2024-05-01T12:00:00.250Z

const chat = (...texts: string[]) => ({
  type: 'chat',
  messages: texts.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
});
const assistant = (message: Record<string, unknown>) => ({
  type: 'chat',
  messages: [{ role: 'assistant', ...message }],
});

function rec(overrides: Partial<RequestLogRecord> = {}): RequestLogRecord {
  return {
    id: 42,
    workspace_id: 1,
    provider: 'openai',
    model: 'gpt-4o',
    api_type: 'chat-completions',
    function_name: 'openai.chat.completions.create',
    input: chat('You are helpful.', 'What is the Capital of France?'),
    output: assistant({ content: [{ type: 'text', text: 'Paris is the capital.' }] }),
    parameters: {},
    tags: ['prod', 'eu'],
    metadata: { env: 'prod', 'user.id': 'u-7', plan: 'Pro' },
    prompt_id: 7,
    prompt_name: 'capitals',
    prompt_version_number: 3,
    prompt_input_variables: { country: 'France', limit: 5, nested: { deep: 'yes' } },
    input_tokens: 100,
    output_tokens: 20,
    price: 0.05,
    score: 0,
    scores: {},
    status: 'SUCCESS',
    error_type: null,
    error_message: null,
    request_start_time: T0,
    request_end_time: T0 + 1500,
    created_at: T0 + 1600,
    ...overrides,
  };
}

const one = (filter: Filter): FilterGroup => ({ logic: 'AND', filters: [filter] });
const m = (filter: Filter, record = rec()) => compileFilter(one(filter)).matches(record);

/** The 422 thrown by compiling `group`. */
function rejection(group: FilterGroup, loc?: (string | number)[]): AppError {
  try {
    compileFilter(group, null, loc);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a 422');
}
const locs = (group: FilterGroup, loc?: (string | number)[]) =>
  rejection(group, loc).detail!.map((d) => d.loc);

describe('string fields (exact, case-sensitive)', () => {
  it('is / is_not', () => {
    expect(m({ field: 'engine', operator: 'is', value: 'gpt-4o' })).toBe(true);
    expect(m({ field: 'engine', operator: 'is', value: 'GPT-4o' })).toBe(false);
    expect(m({ field: 'engine', operator: 'is', value: 'gpt-4' })).toBe(false);
    expect(m({ field: 'provider_type', operator: 'is_not', value: 'anthropic' })).toBe(true);
    expect(m({ field: 'provider_type', operator: 'is_not', value: 'openai' })).toBe(false);
  });

  it('in / not_in', () => {
    expect(m({ field: 'provider_type', operator: 'in', value: ['anthropic', 'openai'] })).toBe(true);
    expect(m({ field: 'provider_type', operator: 'in', value: ['anthropic'] })).toBe(false);
    expect(m({ field: 'provider_type', operator: 'in', value: [] })).toBe(false);
    expect(m({ field: 'engine', operator: 'not_in', value: ['gpt-4o-mini'] })).toBe(true);
    expect(m({ field: 'engine', operator: 'not_in', value: ['gpt-4o'] })).toBe(false);
  });

  it('status', () => {
    expect(m({ field: 'status', operator: 'is', value: 'SUCCESS' })).toBe(true);
    expect(m({ field: 'status', operator: 'in', value: ['WARNING', 'ERROR'] })).toBe(false);
    expect(m({ field: 'status', operator: 'not_in', value: ['ERROR'] }, rec({ status: 'ERROR' }))).toBe(
      false,
    );
  });
});

describe('text fields (case-insensitive)', () => {
  it('contains / not_contains over every message', () => {
    expect(m({ field: 'input_text', operator: 'contains', value: 'capital of FRANCE' })).toBe(true);
    expect(m({ field: 'input_text', operator: 'contains', value: 'helpful' })).toBe(true);
    expect(m({ field: 'input_text', operator: 'contains', value: 'Paris' })).toBe(false);
    expect(m({ field: 'output_text', operator: 'not_contains', value: 'berlin' })).toBe(true);
    expect(m({ field: 'output_text', operator: 'not_contains', value: 'PARIS' })).toBe(false);
  });

  it('starts_with / ends_with', () => {
    expect(m({ field: 'output_text', operator: 'starts_with', value: 'paris' })).toBe(true);
    expect(m({ field: 'output_text', operator: 'starts_with', value: 'capital' })).toBe(false);
    expect(m({ field: 'output_text', operator: 'ends_with', value: 'CAPITAL.' })).toBe(true);
    expect(m({ field: 'output_text', operator: 'ends_with', value: 'Paris' })).toBe(false);
  });

  it('reads completion blueprints and only text blocks', () => {
    const record = rec({
      input: {
        type: 'completion',
        content: [
          { type: 'image_url', image_url: { url: 'https://x/needle.png' } },
          { type: 'text', text: 'Complete: once upon' },
        ],
      },
    });
    expect(m({ field: 'input_text', operator: 'starts_with', value: 'complete:' }, record)).toBe(true);
    expect(m({ field: 'input_text', operator: 'contains', value: 'needle' }, record)).toBe(false);
  });
});

describe('number fields', () => {
  const cases: [Filter, boolean][] = [
    [{ field: 'cost', operator: 'eq', value: 0.05 }, true],
    [{ field: 'cost', operator: 'eq', value: 0.06 }, false],
    [{ field: 'input_tokens', operator: 'neq', value: 99 }, true],
    [{ field: 'input_tokens', operator: 'neq', value: 100 }, false],
    [{ field: 'output_tokens', operator: 'gt', value: 19 }, true],
    [{ field: 'output_tokens', operator: 'gt', value: 20 }, false],
    [{ field: 'output_tokens', operator: 'gte', value: 20 }, true],
    [{ field: 'output_tokens', operator: 'gte', value: 21 }, false],
    [{ field: 'latency_ms', operator: 'lt', value: 1501 }, true],
    [{ field: 'latency_ms', operator: 'lt', value: 1500 }, false],
    [{ field: 'latency_ms', operator: 'lte', value: 1500 }, true],
    [{ field: 'latency_ms', operator: 'lte', value: 1499 }, false],
    [{ field: 'cost', operator: 'between', value: [0.05, 0.1] }, true],
    [{ field: 'cost', operator: 'between', value: [0, 0.05] }, true],
    [{ field: 'cost', operator: 'between', value: [0.06, 1] }, false],
    [{ field: 'pl_id', operator: 'eq', value: 42 }, true],
    [{ field: 'prompt_version_number', operator: 'is_not_null' }, true],
    [{ field: 'prompt_version_number', operator: 'is_null' }, false],
  ];
  it.each(cases)('%j -> %s', (filter, expected) => {
    expect(m(filter)).toBe(expected);
  });

  it('a null prompt_id satisfies only is_null and neq', () => {
    const record = rec({ prompt_id: null });
    expect(m({ field: 'prompt_id', operator: 'is_null' }, record)).toBe(true);
    expect(m({ field: 'prompt_id', operator: 'is_not_null' }, record)).toBe(false);
    expect(m({ field: 'prompt_id', operator: 'neq', value: 7 }, record)).toBe(true);
    expect(m({ field: 'prompt_id', operator: 'eq', value: 0 }, record)).toBe(false);
    expect(m({ field: 'prompt_id', operator: 'lt', value: 1 }, record)).toBe(false);
    expect(m({ field: 'prompt_id', operator: 'gte', value: 0 }, record)).toBe(false);
    expect(m({ field: 'prompt_id', operator: 'between', value: [-1, 1] }, record)).toBe(false);
  });
});

describe('time fields (ISO 8601, epoch seconds or ms; a value names its day, minute, second or ms)', () => {
  const start = 'request_start_time';
  it('is', () => {
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00:00.250Z' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00:00.251Z' })).toBe(false);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00:00Z' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-02' })).toBe(false);
    expect(m({ field: start, operator: 'is', value: T0 / 1000 - 0.25 })).toBe(true); // whole second
    expect(m({ field: start, operator: 'is', value: T0 / 1000 })).toBe(true); // 1714564800.25: exact ms
    expect(m({ field: start, operator: 'is', value: T0 / 1000 + 1 })).toBe(false);
    // Above 1e11 a number counts milliseconds (Date.now()) and names that millisecond.
    expect(m({ field: start, operator: 'is', value: T0 })).toBe(true);
    expect(m({ field: start, operator: 'is', value: T0 + 1 })).toBe(false);
    expect(m({ field: start, operator: 'after', value: T0 - 1 })).toBe(true);
  });

  it('reads offsets, and a missing zone as UTC', () => {
    expect(m({ field: start, operator: 'is', value: '2024-05-01T14:00:00+02:00' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T07:00:00.250-0500' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00:00' })).toBe(true);
    expect(m({ field: start, operator: 'is', value: '2024-05-01T12:00:00+01:00' })).toBe(false);
  });

  it('before / after', () => {
    expect(m({ field: start, operator: 'before', value: '2024-05-01T12:00:01Z' })).toBe(true);
    expect(m({ field: start, operator: 'before', value: '2024-05-01T12:00:00Z' })).toBe(false);
    expect(m({ field: start, operator: 'after', value: '2024-05-01T11:59:59Z' })).toBe(true);
    expect(m({ field: start, operator: 'after', value: '2024-05-01' })).toBe(false); // after that day
    expect(m({ field: start, operator: 'after', value: 1714564799 })).toBe(true);
    expect(m({ field: start, operator: 'after', value: 1714564800 })).toBe(false);
  });

  it('between is inclusive of both named spans', () => {
    expect(m({ field: start, operator: 'between', value: ['2024-04-01', '2024-05-01'] })).toBe(true);
    expect(m({ field: start, operator: 'between', value: [1714564800, 1714564800] })).toBe(true);
    expect(m({ field: start, operator: 'between', value: ['2024-05-02', 1800000000] })).toBe(false);
    expect(m({ field: 'request_end_time', operator: 'between', value: [T0 / 1000, T0 / 1000 + 2] })).toBe(
      true,
    );
    expect(m({ field: 'request_end_time', operator: 'before', value: T0 / 1000 + 1 })).toBe(false);
  });
});

describe('boolean fields', () => {
  const json = rec({
    output: assistant({ content: [{ type: 'text', text: ' {"label": "spam", "n": 2} ' }] }),
  });
  const jsonArray = rec({ output: { type: 'completion', content: [{ type: 'text', text: '[1, 2]' }] } });
  const fenced = rec({ output: assistant({ content: [{ type: 'text', text: '```json\n{"a":1}\n```' }] }) });
  const broken = rec({ output: assistant({ content: [{ type: 'text', text: '{"a":' }] }) });
  const toolCall = rec({
    output: assistant({
      content: [],
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
    }),
  });
  const functionCall = rec({
    output: assistant({ content: [], function_call: { name: 'lookup', arguments: '{}' } }),
  });
  const toolUse = rec({
    output: assistant({
      content: [
        { type: 'text', text: 'Let me search.' },
        { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} },
        { type: 'tool_use', id: 't1', name: 'calculator', input: {} },
      ],
    }),
  });

  it('is_json: the output text is a JSON object or array', () => {
    expect(m({ field: 'is_json', operator: 'is_true' }, json)).toBe(true);
    expect(m({ field: 'is_json', operator: 'is_true' }, jsonArray)).toBe(true);
    expect(m({ field: 'is_json', operator: 'is_true' }, fenced)).toBe(false);
    expect(m({ field: 'is_json', operator: 'is_true' }, broken)).toBe(false);
    expect(m({ field: 'is_json', operator: 'is_false' })).toBe(true);
    expect(m({ field: 'is_json', operator: 'is_false' }, json)).toBe(false);
  });

  it('is_tool_call: tool_calls, function_call or tool-use blocks', () => {
    for (const r of [toolCall, functionCall, toolUse]) {
      expect(m({ field: 'is_tool_call', operator: 'is_true' }, r)).toBe(true);
      expect(m({ field: 'is_tool_call', operator: 'is_false' }, r)).toBe(false);
    }
    expect(m({ field: 'is_tool_call', operator: 'is_true' })).toBe(false);
  });

  it('is_plain_text: neither', () => {
    expect(m({ field: 'is_plain_text', operator: 'is_true' })).toBe(true);
    expect(m({ field: 'is_plain_text', operator: 'is_true' }, fenced)).toBe(true);
    expect(m({ field: 'is_plain_text', operator: 'is_true' }, json)).toBe(false);
    expect(m({ field: 'is_plain_text', operator: 'is_false' }, toolUse)).toBe(true);
  });

  it('tool_names lists the tools called', () => {
    expect(m({ field: 'tool_names', operator: 'contains', value: 'get_weather' }, toolCall)).toBe(true);
    expect(m({ field: 'tool_names', operator: 'contains', value: 'lookup' }, functionCall)).toBe(true);
    expect(m({ field: 'tool_names', operator: 'in', value: ['calculator', 'x'] }, toolUse)).toBe(true);
    expect(m({ field: 'tool_names', operator: 'contains', value: 'web_search' }, toolUse)).toBe(true);
    expect(m({ field: 'tool_names', operator: 'contains', value: 'get_weather' }, toolUse)).toBe(false);
    expect(m({ field: 'tool_names', operator: 'is_empty' })).toBe(true);
  });

  it('output and output_keys read the parsed JSON', () => {
    expect(m({ field: 'output', operator: 'key_equals', nested_key: 'label', value: 'spam' }, json)).toBe(
      true,
    );
    expect(m({ field: 'output', operator: 'key_equals', nested_key: 'n', value: 2 }, json)).toBe(true);
    expect(m({ field: 'output', operator: 'key_equals', nested_key: 'label', value: 'spam' })).toBe(false);
    expect(m({ field: 'output', operator: 'is_empty', nested_key: 'label' })).toBe(true);
    expect(m({ field: 'output', operator: 'key_equals', nested_key: '1', value: 2 }, jsonArray)).toBe(true);
    expect(m({ field: 'output_keys', operator: 'contains', value: 'label' }, json)).toBe(true);
    expect(m({ field: 'output_keys', operator: 'is_empty' }, jsonArray)).toBe(true);
  });
});

describe('array fields (exact elements)', () => {
  it('contains / not_contains', () => {
    expect(m({ field: 'tags', operator: 'contains', value: 'prod' })).toBe(true);
    expect(m({ field: 'tags', operator: 'contains', value: 'PROD' })).toBe(false);
    expect(m({ field: 'tags', operator: 'not_contains', value: 'dev' })).toBe(true);
    expect(m({ field: 'tags', operator: 'not_contains', value: 'eu' })).toBe(false);
  });

  it('in (any of) / not_in (none of)', () => {
    expect(m({ field: 'tags', operator: 'in', value: ['dev', 'eu'] })).toBe(true);
    expect(m({ field: 'tags', operator: 'in', value: ['dev', 'us'] })).toBe(false);
    expect(m({ field: 'tags', operator: 'not_in', value: ['dev', 'us'] })).toBe(true);
    expect(m({ field: 'tags', operator: 'not_in', value: ['dev', 'prod'] })).toBe(false);
  });

  it('is_empty / is_not_empty', () => {
    expect(m({ field: 'tags', operator: 'is_empty' }, rec({ tags: [] }))).toBe(true);
    expect(m({ field: 'tags', operator: 'is_empty' })).toBe(false);
    expect(m({ field: 'tags', operator: 'is_not_empty' })).toBe(true);
    expect(m({ field: 'metadata_keys', operator: 'is_not_empty' }, rec({ metadata: {} }))).toBe(false);
  });

  it('key fields', () => {
    expect(m({ field: 'metadata_keys', operator: 'contains', value: 'user.id' })).toBe(true);
    expect(m({ field: 'metadata_keys', operator: 'contains', value: 'user' })).toBe(false);
    expect(m({ field: 'input_variable_keys', operator: 'in', value: ['country'] })).toBe(true);
    expect(m({ field: 'input_variable_keys', operator: 'not_in', value: ['limit'] })).toBe(false);
  });
});

describe('nested fields', () => {
  it('key_equals / key_not_equals (string forms, exact)', () => {
    expect(m({ field: 'metadata', operator: 'key_equals', nested_key: 'env', value: 'prod' })).toBe(true);
    expect(m({ field: 'metadata', operator: 'key_equals', nested_key: 'plan', value: 'pro' })).toBe(false);
    expect(m({ field: 'metadata', operator: 'key_not_equals', nested_key: 'env', value: 'dev' })).toBe(true);
    expect(m({ field: 'metadata', operator: 'key_not_equals', nested_key: 'env', value: 'prod' })).toBe(
      false,
    );
    expect(m({ field: 'metadata', operator: 'key_not_equals', nested_key: 'missing', value: 'x' })).toBe(
      true,
    );
    expect(m({ field: 'input_variables', operator: 'key_equals', nested_key: 'limit', value: '5' })).toBe(
      true,
    );
    expect(
      m(
        { field: 'metadata', operator: 'key_equals', nested_key: 'n', value: 5 },
        rec({ metadata: { n: '5' } }),
      ),
    ).toBe(true);
  });

  it('dot paths, and dotted keys as they are', () => {
    expect(m({ field: 'metadata', operator: 'key_equals', nested_key: 'user.id', value: 'u-7' })).toBe(true);
    expect(
      m({ field: 'input_variables', operator: 'key_equals', nested_key: 'nested.deep', value: 'yes' }),
    ).toBe(true);
    expect(
      m({ field: 'input_variables', operator: 'key_equals', nested_key: 'nested.none', value: 'yes' }),
    ).toBe(false);
    expect(m({ field: 'input_variables', operator: 'is_empty', nested_key: 'toString' })).toBe(true);
  });

  it('key_contains (case-insensitive; element of an array)', () => {
    expect(m({ field: 'metadata', operator: 'key_contains', nested_key: 'plan', value: 'PR' })).toBe(true);
    expect(m({ field: 'metadata', operator: 'key_contains', nested_key: 'plan', value: 'free' })).toBe(false);
    const record = rec({ prompt_input_variables: { ids: [1, 2, 'x'] } });
    expect(
      m({ field: 'input_variables', operator: 'key_contains', nested_key: 'ids', value: 2 }, record),
    ).toBe(true);
    expect(
      m({ field: 'input_variables', operator: 'key_contains', nested_key: 'ids', value: 3 }, record),
    ).toBe(false);
  });

  it('in / not_in', () => {
    expect(m({ field: 'metadata', operator: 'in', nested_key: 'env', value: ['staging', 'prod'] })).toBe(
      true,
    );
    expect(m({ field: 'metadata', operator: 'in', nested_key: 'env', value: ['staging'] })).toBe(false);
    expect(m({ field: 'metadata', operator: 'not_in', nested_key: 'env', value: ['staging'] })).toBe(true);
    expect(m({ field: 'metadata', operator: 'not_in', nested_key: 'env', value: ['prod'] })).toBe(false);
    expect(m({ field: 'input_variables', operator: 'in', nested_key: 'limit', value: [5, 6] })).toBe(true);
  });

  it('is_empty / is_not_empty (missing, null, "", [] and {} are empty)', () => {
    const record = rec({ prompt_input_variables: { blank: '', none: null, list: [], obj: {}, zero: 0 } });
    for (const key of ['blank', 'none', 'list', 'obj', 'absent']) {
      expect(m({ field: 'input_variables', operator: 'is_empty', nested_key: key }, record)).toBe(true);
      expect(m({ field: 'input_variables', operator: 'is_not_empty', nested_key: key }, record)).toBe(false);
    }
    expect(m({ field: 'input_variables', operator: 'is_not_empty', nested_key: 'zero' }, record)).toBe(true);
  });
});

describe('groups', () => {
  const cheap: Filter = { field: 'cost', operator: 'lt', value: 1 };
  const expensive: Filter = { field: 'cost', operator: 'gt', value: 1 };

  it('AND and OR', () => {
    expect(compileFilter({ logic: 'AND', filters: [cheap, expensive] }).matches(rec())).toBe(false);
    expect(compileFilter({ logic: 'OR', filters: [cheap, expensive] }).matches(rec())).toBe(true);
    expect(compileFilter({ filters: [cheap, cheap, cheap, expensive] }).matches(rec())).toBe(false);
    expect(
      compileFilter({ logic: 'OR', filters: [expensive, expensive, expensive, cheap] }).matches(rec()),
    ).toBe(true);
  });

  it('nests', () => {
    const group: FilterGroup = {
      logic: 'AND',
      filters: [
        { field: 'tags', operator: 'contains', value: 'prod' },
        { logic: 'OR', filters: [{ field: 'status', operator: 'is', value: 'ERROR' }, cheap] },
        {
          logic: 'OR',
          filters: [
            expensive,
            { logic: 'AND', filters: [cheap, { field: 'pl_id', operator: 'eq', value: 42 }] },
          ],
        },
      ],
    };
    expect(compileFilter(group).matches(rec())).toBe(true);
    expect(compileFilter(group).matches(rec({ id: 43 }))).toBe(false);
    expect(compileFilter(group).matches(rec({ tags: [] }))).toBe(false);
  });

  it('an empty group, or none, matches everything', () => {
    expect(compileFilter({ logic: 'OR', filters: [] }).matches(rec())).toBe(true);
    expect(compileFilter({ filters: [expensive, { filters: [] }], logic: 'OR' }).matches(rec())).toBe(true);
    expect(compileFilter({ filters: [cheap, { filters: [] }] }).matches(rec())).toBe(true);
    expect(compileFilter(null).matches(rec())).toBe(true);
    expect(compileFilter(undefined).hints).toEqual({});
  });
});

describe('q', () => {
  it('is a case-insensitive substring of the input or output text', () => {
    expect(compileFilter(null, 'CAPITAL OF france').matches(rec())).toBe(true);
    expect(compileFilter(null, 'paris is').matches(rec())).toBe(true);
    expect(compileFilter(null, 'berlin').matches(rec())).toBe(false);
    expect(compileFilter(null, '   ').matches(rec())).toBe(true);
  });

  it('applies together with the group', () => {
    const group = one({ field: 'engine', operator: 'is', value: 'claude' });
    expect(compileFilter(group, 'paris').matches(rec())).toBe(false);
    expect(
      compileFilter(one({ field: 'engine', operator: 'is', value: 'gpt-4o' }), 'paris').matches(rec()),
    ).toBe(true);
  });
});

describe('hints', () => {
  const from = Date.UTC(2024, 0, 1);
  const to = Date.UTC(2024, 1, 1);
  const after: Filter = { field: 'request_start_time', operator: 'after', value: '2023-12-31' };
  const before: Filter = { field: 'request_start_time', operator: 'before', value: '2024-02-01T00:00:00Z' };

  it('AND gives the tightest bounds, statuses, prompt ids and tags', () => {
    const { hints } = compileFilter({
      logic: 'AND',
      filters: [
        after,
        before,
        { field: 'request_start_time', operator: 'after', value: 1000 },
        { field: 'status', operator: 'in', value: ['SUCCESS', 'WARNING'] },
        { field: 'prompt_id', operator: 'eq', value: 7 },
        { field: 'tags', operator: 'contains', value: 'prod' },
        { logic: 'AND', filters: [{ field: 'tags', operator: 'in', value: ['eu'] }] },
        { logic: 'OR', filters: [{ field: 'status', operator: 'is', value: 'WARNING' }] },
      ],
    });
    expect(hints).toEqual({
      startTimeFrom: from,
      startTimeTo: to - 1,
      statuses: ['WARNING'],
      promptIds: [7],
      tags: ['prod', 'eu'],
    });
  });

  it('OR at the root gives none', () => {
    const group: FilterGroup = {
      logic: 'OR',
      filters: [after, { field: 'status', operator: 'is', value: 'ERROR' }],
    };
    expect(compileFilter(group).hints).toEqual({});
  });

  it('an OR inside an AND gives none of its own', () => {
    const group: FilterGroup = {
      filters: [
        before,
        { logic: 'OR', filters: [after, { field: 'status', operator: 'is', value: 'ERROR' }] },
      ],
    };
    expect(compileFilter(group).hints).toEqual({ startTimeTo: to - 1 });
  });

  it('between on request_start_time gives both bounds; other time fields give none', () => {
    const between: Filter = {
      field: 'request_start_time',
      operator: 'between',
      value: ['2024-01-01', 1706745599],
    };
    expect(compileFilter(one(between)).hints).toEqual({ startTimeFrom: from, startTimeTo: to - 1 });
    expect(compileFilter(one({ ...between, field: 'request_end_time' })).hints).toEqual({});
    const is: Filter = { field: 'request_start_time', operator: 'is', value: '2024-01-01' };
    expect(compileFilter(one(is)).hints).toEqual({ startTimeFrom: from, startTimeTo: from + 86_400_000 - 1 });
  });

  it('status is / in / is_not give the statuses a match can have', () => {
    expect(compileFilter(one({ field: 'status', operator: 'is', value: 'ERROR' })).hints).toEqual({
      statuses: ['ERROR'],
    });
    expect(
      compileFilter(one({ field: 'status', operator: 'in', value: ['ERROR', 'SUCCESS'] })).hints,
    ).toEqual({
      statuses: ['SUCCESS', 'ERROR'],
    });
    // RUNNING (a replay in progress) is a status a log can have too.
    expect(compileFilter(one({ field: 'status', operator: 'is_not', value: 'ERROR' })).hints).toEqual({
      statuses: ['SUCCESS', 'WARNING', 'RUNNING'],
    });
    const contradiction = compileFilter({
      filters: [
        { field: 'status', operator: 'is', value: 'ERROR' },
        { field: 'status', operator: 'is', value: 'SUCCESS' },
      ],
    });
    expect(contradiction.hints).toEqual({ statuses: [] });
  });
});

describe('422s name the filter', () => {
  const L = ['body', 'filter_group'];

  it('unknown field', () => {
    const e = rejection({ filters: [{ field: 'colour', operator: 'is', value: 'x' }] }, L);
    expect(e.status).toBe(422);
    expect(e.code).toBe('validation_error');
    expect(e.detail).toEqual([
      { loc: [...L, 'filters', 0, 'field'], msg: expect.stringContaining('colour'), type: 'enum' },
    ]);
    expect(e.message).toMatch(/^Invalid body\.filter_group\.filters\.0\.field: /);
  });

  it('operator outside the table for the field kind', () => {
    expect(locs({ filters: [{ field: 'cost', operator: 'is', value: 1 }] }, L)).toEqual([
      [...L, 'filters', 0, 'operator'],
    ]);
    expect(locs({ filters: [{ field: 'engine', operator: 'contains', value: 'gpt' }] })).toEqual([
      ['filter_group', 'filters', 0, 'operator'],
    ]);
    expect(locs({ filters: [{ field: 'metadata', operator: 'eq', value: 1, nested_key: 'a' }] })).toEqual([
      ['filter_group', 'filters', 0, 'operator'],
    ]);
  });

  it('missing nested_key', () => {
    const e = rejection(
      { filters: [{ field: 'metadata', operator: 'key_equals', value: 'x', nested_key: null }] },
      L,
    );
    expect(e.detail).toEqual([
      { loc: [...L, 'filters', 0, 'nested_key'], msg: expect.any(String), type: 'missing' },
    ]);
    expect(locs({ filters: [{ field: 'output', operator: 'is_empty' }] })).toEqual([
      ['filter_group', 'filters', 0, 'nested_key'],
    ]);
  });

  it('values of the wrong form', () => {
    const at = (i: number, ...rest: (string | number)[]) => [...L, 'filters', i, 'value', ...rest];
    const group: FilterGroup = {
      filters: [
        { field: 'cost', operator: 'between', value: [1] },
        { field: 'cost', operator: 'between', value: [1, 'x'] },
        { field: 'tags', operator: 'in', value: 'prod' },
        { field: 'request_start_time', operator: 'after', value: 'yesterday' },
        { field: 'request_start_time', operator: 'after', value: 1e16 }, // past the year 9999
        { field: 'request_start_time', operator: 'is', value: '2024-02-30' },
        { field: 'input_tokens', operator: 'gt', value: '10' },
        { field: 'status', operator: 'is', value: 'success' },
        { field: 'metadata', operator: 'in', nested_key: 'env', value: ['ok', null] },
        { field: 'cost', operator: 'between', value: [2, 1] },
        { field: 'input_text', operator: 'contains' },
        { field: 'metadata', operator: 'key_equals', nested_key: 'env', value: null },
        { field: 'request_start_time', operator: 'between', value: ['2024-02-01', '2024-01-01'] },
      ],
    };
    expect(locs(group, L)).toEqual([
      at(0),
      at(1, 1),
      at(2),
      at(3),
      at(4),
      at(5),
      at(6),
      at(7),
      at(8, 1),
      at(9),
      at(10),
      at(11),
      at(12),
    ]);
    expect(rejection(group, L).message).toMatch(/\(and 12 more\)$/);
  });

  it('inside nested groups', () => {
    const group: FilterGroup = {
      filters: [
        { field: 'cost', operator: 'gt', value: 1 },
        { logic: 'OR', filters: [{ filters: [{ field: 'nope', operator: 'is' }] }] },
      ],
    };
    expect(locs(group, L)).toEqual([[...L, 'filters', 1, 'filters', 0, 'filters', 0, 'field']]);
  });

  it('too deep, too many, too long', () => {
    let deep: FilterGroup = { filters: [{ field: 'cost', operator: 'gt', value: 1 }] };
    for (let i = 1; i < MAX_GROUP_DEPTH; i++) deep = { filters: [deep] };
    expect(() => compileFilter(deep)).not.toThrow();
    const tooDeep: FilterGroup = { filters: [deep] };
    const e = rejection(tooDeep, L);
    expect(e.detail).toEqual([
      {
        loc: [...L, ...Array(MAX_GROUP_DEPTH).fill(['filters', 0]).flat()],
        msg: expect.any(String),
        type: 'too_deep',
      },
    ]);

    const many = {
      filters: Array.from({ length: MAX_FILTERS + 1 }, () => ({ field: 'cost', operator: 'gt', value: 1 })),
    };
    expect(rejection(many, L).detail).toEqual([
      { loc: L, msg: expect.stringContaining('201'), type: 'too_long' },
    ]);

    const long = one({ field: 'tags', operator: 'in', value: Array(MAX_LIST_ITEMS + 1).fill('t') });
    expect(rejection(long, L).detail).toEqual([
      { loc: [...L, 'filters', 0, 'value'], msg: expect.any(String), type: 'too_long' },
    ]);
  });
});

describe('FilterGroupSchema', () => {
  it('parses the structure and leaves semantics to compileFilter', () => {
    const parsed = FilterGroupSchema.parse({
      logic: 'OR',
      filters: [{ field: 'engine', operator: 'nope', value: ['a', 1, true, null] }, { filters: [] }],
    });
    expect(parsed.filters).toHaveLength(2);
    expect(FilterGroupSchema.safeParse({ logic: 'XOR', filters: [] }).success).toBe(false);
    expect(FilterGroupSchema.safeParse({ filters: [{ field: 'cost' }] }).success).toBe(false);
    expect(
      FilterGroupSchema.safeParse({ filters: [{ field: 'cost', operator: 'eq', value: { a: 1 } }] }).success,
    ).toBe(false);
  });

  it('rejects deep nesting before recursing', () => {
    let deep: unknown = { filters: [] };
    for (let i = 0; i < 100_000; i++) deep = { filters: [deep] };
    const result = FilterGroupSchema.safeParse(deep);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/nest/);
  });
});

describe('derived values', () => {
  it('are computed at most once per record', () => {
    let reads = 0;
    const base = rec({ output: assistant({ content: [{ type: 'text', text: '{"k": "v"}' }] }) });
    const record = { ...base };
    Object.defineProperty(record, 'output', {
      get: () => {
        reads += 1;
        return base.output;
      },
    });
    const filters = [
      compileFilter(one({ field: 'output_text', operator: 'contains', value: 'k' })),
      compileFilter(one({ field: 'output', operator: 'key_equals', nested_key: 'k', value: 'v' })),
      compileFilter(one({ field: 'is_plain_text', operator: 'is_false' })),
      compileFilter(null, 'K'),
    ];
    for (const f of filters) expect(f.matches(record)).toBe(true);
    const afterFirstPass = reads;
    for (const f of filters) f.matches(record);
    expect(reads).toBe(afterFirstPass);
    expect(afterFirstPass).toBeLessThanOrEqual(2); // text once, tool calls once
  });

  it('belong to their record when records alternate', () => {
    const paris = rec();
    const berlin = rec({ output: assistant({ content: [{ type: 'text', text: 'Berlin.' }] }) });
    const filter = compileFilter(one({ field: 'output_text', operator: 'contains', value: 'paris' }));
    expect([paris, berlin, paris, berlin].map((r) => filter.matches(r))).toEqual([true, false, true, false]);
  });
});
