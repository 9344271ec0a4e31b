import { describe, expect, it } from 'vitest';
import { trackPromptBodySchema } from '#shared/request-logs/annotation-schemas.ts';
import { withMetadata, withScore } from '#shared/request-logs/annotations.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { toSearchResult } from '#shared/request-logs/search.ts';

const base = {
  id: 3,
  score: 10,
  scores: { default: 10, accuracy: 70 },
  metadata: { env: 'prod', user: 'u-1' },
} as unknown as RequestLogRecord;

describe('withScore', () => {
  it('sets a named score and keeps the others, leaving score alone', () => {
    const next = withScore(base, 'helpfulness', 90);
    expect(next.scores).toEqual({ default: 10, accuracy: 70, helpfulness: 90 });
    expect(next.score).toBe(10);
  });

  it('makes the default score the log score', () => {
    const next = withScore(base, 'default', 55);
    expect(next.scores).toEqual({ default: 55, accuracy: 70 });
    expect(next.score).toBe(55);
  });

  it('replaces a score of the same name and never mutates the record', () => {
    const next = withScore(base, 'accuracy', 0);
    expect(next.scores.accuracy).toBe(0);
    expect(base.scores).toEqual({ default: 10, accuracy: 70 });
  });
});

describe('withMetadata', () => {
  it('merges keys, the new value winning', () => {
    const next = withMetadata(base, { user: 'u-2', session: 's-9' });
    expect(next.metadata).toEqual({ env: 'prod', user: 'u-2', session: 's-9' });
    expect(base.metadata).toEqual({ env: 'prod', user: 'u-1' });
  });

  it('keeps an own __proto__ key as data', () => {
    const next = withMetadata(base, JSON.parse('{"__proto__": "x"}'));
    expect(Object.keys(next.metadata)).toContain('__proto__');
    expect(JSON.stringify(next.metadata)).toContain('"__proto__":"x"');
  });
});

describe('toSearchResult', () => {
  it('lists metadata and scores in the reference list forms', () => {
    const record = {
      ...base,
      model: 'gpt-4o',
      provider: 'openai',
      input_tokens: 1,
      output_tokens: 2,
      price: 0.1,
      tags: ['a'],
      request_start_time: Date.UTC(2024, 0, 1),
      request_end_time: Date.UTC(2024, 0, 1) + 1234,
      prompt_name: null,
      prompt_id: null,
      prompt_version_number: null,
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
    } as RequestLogRecord;
    expect(toSearchResult(record)).toMatchObject({
      id: 3,
      engine: 'gpt-4o',
      provider_type: 'openai',
      request_start_time: '2024-01-01T00:00:00.000Z',
      latency: 1.234,
      tags_array: ['a'],
      metadata: [{ env: 'prod' }, { user: 'u-1' }],
      scores: [
        { name: 'default', score: 10 },
        { name: 'accuracy', score: 70 },
      ],
      prompt_name: null,
    });
  });
});

describe('trackPromptBodySchema (POST /library-track-prompt)', () => {
  it('names templates and labels as the prompt registry does: well-formed, version or label', () => {
    const parsed = trackPromptBodySchema.parse({ request_id: '7', prompt_name: 'greet', version: '2' });
    expect(parsed).toEqual({ request_id: 7, prompt_name: 'greet', version: 2, prompt_input_variables: {} });
    const issues = (body: Record<string, unknown>) =>
      trackPromptBodySchema.safeParse({ request_id: 1, ...body }).error?.issues.map((issue) => issue.path);
    expect(issues({ prompt_name: 's\ud800' })).toEqual([['prompt_name']]);
    expect(issues({ prompt_name: 'greet', label: 'prod\udc00' })).toEqual([['label']]);
    expect(issues({ prompt_name: 'greet', version: 1, label: 'prod' })).toEqual([['label']]);
  });
});
