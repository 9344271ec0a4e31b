import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import { diffOf } from '#shared/replay/list.ts';
import { replayRequest } from '#shared/replay/request.ts';
import { type ReplayOverrides, replayBodySchema } from '#shared/replay/schemas.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

/** What a replay sends, from a log and overrides (request.ts), and how a replay's output is compared (list.ts). */
const text = (value: string) => [{ type: 'text', text: value }];

function log(fields: Partial<RequestLogRecord>): RequestLogRecord {
  return {
    id: 1,
    workspace_id: 1,
    provider: 'openai',
    model: 'gpt-4o',
    api_type: 'chat-completions',
    function_name: '',
    input: { type: 'chat', messages: [{ role: 'user', content: text('Hi') }] },
    output: { type: 'chat', messages: [{ role: 'assistant', content: text('Hello') }] },
    parameters: {},
    tags: [],
    metadata: {},
    prompt_id: null,
    prompt_name: null,
    prompt_version_number: null,
    prompt_input_variables: {},
    input_tokens: 0,
    output_tokens: 0,
    price: 0,
    score: 0,
    scores: {},
    status: 'SUCCESS',
    error_type: null,
    error_message: null,
    request_start_time: 0,
    request_end_time: 1000,
    created_at: 0,
    ...fields,
  };
}

const overrides = (body: unknown): ReplayOverrides => replayBodySchema.parse(body);

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('replayRequest', () => {
  it('sends a tracked request as it was, with the model, parameters and tools overridden, never streaming', () => {
    const sent = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 1,
      stream: true,
      stream_options: { include_usage: true },
      baseURL: 'https://proxy.example',
    };
    const request = replayRequest(
      log({ provider_request: sent }),
      overrides({ model: 'gpt-4o-mini', parameters: { temperature: 0, seed: 7 }, tool_choice: 'none' }),
    );
    expect(request).toEqual({
      provider: 'openai',
      source: 'as_sent',
      body: {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        temperature: 0,
        seed: 7,
        tool_choice: 'none',
      },
    });
  });

  it('rebuilds a logged request for another provider, translating the system message and parameters', () => {
    const original = log({
      provider: 'openai',
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: text('Be brief.') },
          { role: 'user', content: text('Hi') },
        ],
      },
      parameters: { temperature: 0.2, max_tokens: 100, frequency_penalty: 1 },
      provider_request: { model: 'gpt-4o', messages: [] },
    });
    const request = replayRequest(original, overrides({ provider: 'anthropic', model: 'claude-sonnet-4-5' }));
    expect(request).toMatchObject({ provider: 'anthropic', source: 'rebuilt' });
    expect(request.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      temperature: 0.2,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('refuses a provider it cannot call, naming it, unless the overrides name one it can', () => {
    const original = log({ provider: 'google', model: 'gemini-2.5-pro', api_type: null });
    expect(refusal(() => replayRequest(original, overrides({}))).message).toContain('"google"');
    expect(replayRequest(original, overrides({ provider: 'openai' })).provider).toBe('openai');
  });

  it('refuses a logged request above the max-tokens ceiling or the message bound, at the field to change', () => {
    const tooLong = log({
      provider_request: { model: 'gpt-4o', messages: [], max_completion_tokens: 1_000_000 },
    });
    expect(refusal(() => replayRequest(tooLong, overrides({}))).detail?.[0]?.loc).toEqual([
      'body',
      'parameters',
      'max_completion_tokens',
    ]);
    const many = Array.from({ length: 1_001 }, () => ({ role: 'user', content: 'x' }));
    const crowded = log({ provider_request: { model: 'gpt-4o', messages: many } });
    expect(refusal(() => replayRequest(crowded, overrides({}))).detail?.[0]?.loc).toEqual([
      'body',
      'messages',
    ]);
  });
});

describe('diffOf', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{}' } });
  const withCall = (id: string, words: string) =>
    log({
      output: {
        type: 'chat',
        messages: [{ role: 'assistant', content: text(words), tool_calls: [call(id)] }],
      },
    });

  it('sees the same answer through new tool-call ids, and a changed one when the text differs', () => {
    expect(diffOf(withCall('call_1', 'ok'), withCall('call_2', 'ok')).output_changed).toBe(false);
    expect(diffOf(withCall('call_1', 'ok'), withCall('call_1', 'no')).output_changed).toBe(true);
  });

  it('has no output verdict while the replay runs, and deltas as replay minus original', () => {
    const original = log({ price: 0.5, request_end_time: 1000 });
    const running = log({ status: 'RUNNING', price: 0, request_end_time: 0 });
    expect(diffOf(original, running)).toEqual({
      output_changed: null,
      status_changed: true,
      cost_delta: -0.5,
      latency_delta_ms: -1000,
    });
  });

  it('answers the cost delta in whole 1e-12 USD, as costs are stored, without float noise', () => {
    const delta = diffOf(log({ price: 0.000125 }), log({ price: 0.000135 })).cost_delta;
    expect(delta).toBe(0.00001);
  });
});
