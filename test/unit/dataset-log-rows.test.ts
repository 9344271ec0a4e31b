import { describe, expect, it } from 'vitest';
import { LogRowBuilder, resolveField } from '#shared/datasets/log-rows.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

/** Rows from request logs: variables, parsed fields, the log's own fields, and column names. */
function record(overrides: Partial<RequestLogRecord> = {}): RequestLogRecord {
  return {
    id: 11,
    workspace_id: 1,
    provider: 'openai',
    model: 'gpt-4o',
    api_type: null,
    function_name: '',
    input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }] },
    parameters: { temperature: 0.2 },
    tags: ['prod'],
    metadata: { app: 'checkout' },
    prompt_id: null,
    prompt_name: null,
    prompt_version_number: null,
    prompt_input_variables: { question: 'why?', customer: { name: 'Ada', orders: [{ id: 'o-1' }] } },
    input_tokens: 5,
    output_tokens: 7,
    price: 0.01,
    score: 0,
    scores: {},
    status: 'SUCCESS',
    error_type: null,
    error_message: null,
    request_start_time: Date.parse('2026-01-01T00:00:00Z'),
    request_end_time: Date.parse('2026-01-01T00:00:01.5Z'),
    created_at: 0,
    ...overrides,
  };
}

describe('resolveField', () => {
  it.each([
    ['question', 'why?'],
    ['customer.name', 'Ada'],
    ['customer.orders.0.id', 'o-1'],
    ['metadata.app', 'checkout'],
    ['parameters.temperature', 0.2],
    ['model', 'gpt-4o'],
    ['request_id', 11],
    ['input_text', 'Hi'],
    ['output_text', 'Hello'],
    ['latency_ms', 1500],
    ['cost', 0.01],
    ['request_start_time', '2026-01-01T00:00:00.000Z'],
    ['nope', undefined],
    ['customer.nope.deeper', undefined],
    ['workspace_id', undefined],
    ['constructor', undefined],
  ])('%s -> %j', (name, value) => {
    expect(resolveField(record(), name)).toEqual(value);
  });

  it('reads the usage (from the totals for a log stored before usage) and the cost breakdown', () => {
    expect(resolveField(record(), 'usage.input_tokens')).toBe(5);
    expect(resolveField(record(), 'usage.cache_read_tokens')).toBe(0);
    expect(resolveField(record(), 'cost_breakdown')).toBeNull();
    const priced = record({
      usage: {
        input_tokens: 5,
        output_tokens: 7,
        cache_read_tokens: 4,
        cache_write_tokens: 0,
        reasoning_tokens: 3,
      },
      cost: {
        total: 0.01,
        input: 0.002,
        cached_input: 0.001,
        cache_write: 0,
        output: 0.004,
        reasoning: 0.003,
        source: 'price_table@0.1.8',
        priced_as: 'gpt-4o',
      },
    });
    expect(resolveField(priced, 'usage.reasoning_tokens')).toBe(3);
    expect(resolveField(priced, 'cost_breakdown.cached_input')).toBe(0.001);
    expect(resolveField(priced, 'cost_breakdown.source')).toBe('price_table@0.1.8');
  });

  it('prefers a variable whose whole name has dots', () => {
    expect(resolveField(record({ prompt_input_variables: { 'a.b': 1, a: { b: 2 } } }), 'a.b')).toBe(1);
  });
});

describe('LogRowBuilder', () => {
  it('keys variables and log fields apart, and names columns when done', () => {
    const builder = new LogRowBuilder(['output_text', 'question']);

    const first = builder.row(record());
    const second = builder.row(record({ prompt_input_variables: { input: 'template var' } }));

    expect(first).toMatchObject({ 'v:question': 'why?', 'v:output_text': 'Hello', 'f:tags': ['prod'] });
    expect(second).toMatchObject({
      'v:input': 'template var',
      'v:question': null,
      'f:input': record().input,
    });
    expect(builder.layout()).toEqual({
      columns: [
        'output_text',
        'question',
        'customer',
        'input',
        'request_input',
        'output',
        'metadata',
        'tags',
      ],
      keys: [
        'v:output_text',
        'v:question',
        'v:customer',
        'v:input',
        'f:input',
        'f:output',
        'f:metadata',
        'f:tags',
      ],
    });
  });

  it('renames a log field column as many times as it takes', () => {
    const builder = new LogRowBuilder();
    builder.row(record({ prompt_input_variables: { tags: 1, request_tags: 2 } }));

    expect(builder.layout().columns).toEqual([
      'tags',
      'request_tags',
      'input',
      'output',
      'metadata',
      'request_request_tags',
    ]);
  });
});
