import { describe, expect, it } from 'vitest';
import { classifyFailure, providerFailure, redact } from '#shared/providers/errors.ts';
import { openAIText } from '#shared/providers/openai.ts';
import { callTimeoutMs, DEFAULT_PROVIDER_TIMEOUT_MS } from '#shared/providers/port.ts';

const openaiError = (message: string, type: string, code: string | null) =>
  JSON.stringify({ error: { message, type, param: null, code } });
const anthropicError = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message } });

describe('provider error types', () => {
  it.each([
    [
      'OpenAI rate limit',
      429,
      openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded'),
      'PROVIDER_RATE_LIMIT',
    ],
    [
      'OpenAI quota',
      429,
      openaiError('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'),
      'PROVIDER_QUOTA_LIMIT',
    ],
    [
      'OpenAI bad key',
      401,
      openaiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'),
      'PROVIDER_AUTH_ERROR',
    ],
    ['OpenAI forbidden', 403, openaiError('Forbidden', 'invalid_request_error', null), 'PROVIDER_AUTH_ERROR'],
    [
      'OpenAI server error',
      500,
      openaiError('The server had an error', 'server_error', null),
      'PROVIDER_ERROR',
    ],
    [
      'OpenAI bad request',
      400,
      openaiError('Invalid model', 'invalid_request_error', 'model_not_found'),
      'PROVIDER_ERROR',
    ],
    [
      'Anthropic rate limit',
      429,
      anthropicError('rate_limit_error', 'Too many requests'),
      'PROVIDER_RATE_LIMIT',
    ],
    [
      'Anthropic credit balance',
      400,
      anthropicError('invalid_request_error', 'Your credit balance is too low'),
      'PROVIDER_QUOTA_LIMIT',
    ],
    ['Anthropic billing', 402, anthropicError('billing_error', 'Payment required'), 'PROVIDER_QUOTA_LIMIT'],
    [
      'Anthropic auth',
      401,
      anthropicError('authentication_error', 'invalid x-api-key'),
      'PROVIDER_AUTH_ERROR',
    ],
    ['Anthropic overloaded', 529, anthropicError('overloaded_error', 'Overloaded'), 'PROVIDER_ERROR'],
    ['gateway timeout', 504, 'upstream timed out', 'PROVIDER_TIMEOUT'],
    ['a body that is not JSON', 502, '<html>bad gateway</html>', 'PROVIDER_ERROR'],
  ])('%s (%i) is %s', (_name, status, body, type) => {
    expect(classifyFailure({ provider: 'p', status, body })).toBe(type);
  });

  it('reads no answer in time as PROVIDER_TIMEOUT and a connection failure as PROVIDER_ERROR', () => {
    expect(classifyFailure({ provider: 'p', timedOut: true })).toBe('PROVIDER_TIMEOUT');
    expect(classifyFailure({ provider: 'p', cause: 'ECONNREFUSED' })).toBe('PROVIDER_ERROR');
  });

  it('keeps the provider body as raw and names the status and the provider message', () => {
    const error = providerFailure({
      provider: 'openai',
      status: 429,
      body: openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded'),
    });
    expect(error.typedMessage).toBe('PROVIDER_RATE_LIMIT: openai answered 429: Rate limit reached');
    expect(JSON.parse(error.raw ?? '')).toEqual({
      error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
  });

  it('never keeps the key, nor the masked spelling a provider echoes', () => {
    const key = 'sk-test-secret-key-1234';
    const body = openaiError(
      `Incorrect API key provided: sk-te***********1234. Key ${key}`,
      'x',
      'invalid_api_key',
    );
    const error = providerFailure({ provider: 'openai', status: 401, body }, key);
    expect(error.raw).not.toContain(key);
    expect(error.raw).not.toContain('***');
    expect(error.message).not.toContain(key);
    expect(redact(`a ${key} b`, key)).toBe('a [redacted] b');
  });
});

describe('OpenAI answers', () => {
  it('reads the text of a chat completion, a legacy completion and a Responses answer', () => {
    expect(openAIText('chat-completions', { choices: [{ message: { content: 'hi' } }] })).toBe('hi');
    expect(openAIText('chat-completions', { choices: [{ message: { content: null } }] })).toBe('');
    expect(openAIText('completions', { choices: [{ text: 'done' }] })).toBe('done');
    const output = [
      { type: 'reasoning', content: [] },
      { type: 'message', content: [{ type: 'output_text', text: 'a' }, { type: 'refusal' }] },
      { type: 'message', content: [{ type: 'output_text', text: 'b' }] },
    ];
    expect(openAIText('responses', { output })).toBe('ab');
    expect(openAIText('responses', { output_text: 'given', output })).toBe('given');
  });
});

describe('call timeout', () => {
  it('ends a second before the deadline, and never later than the configured ceiling', () => {
    expect(callTimeoutMs(10_000, 0)).toBe(9_000);
    expect(callTimeoutMs(10_000_000, 0)).toBe(DEFAULT_PROVIDER_TIMEOUT_MS);
    expect(callTimeoutMs(500, 0)).toBeLessThanOrEqual(0);
  });
});
