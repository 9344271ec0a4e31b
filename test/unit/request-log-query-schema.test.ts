import { describe, expect, it } from 'vitest';
import { validate } from '#shared/platform/http.ts';
import { MAX_GROUP_DEPTH } from '#shared/request-logs/filters.ts';
import { matchingRequestLogs, requestLogQuerySchema } from '#shared/request-logs/query.ts';

const locs = (body: unknown) => {
  try {
    validate(requestLogQuerySchema, body, 'body');
  } catch (error) {
    return (error as { status: number; detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
  }
  return [];
};

describe('requestLogQuerySchema', () => {
  it('accepts the shared fields and nulls', () => {
    const body = {
      filter_group: { logic: 'AND', filters: [{ field: 'cost', operator: 'gte', value: 0.1 }] },
      q: 'hello',
      sort_by: 'cost',
      sort_order: 'asc',
    };
    expect(validate(requestLogQuerySchema, body, 'body')).toEqual(body);
    expect(
      validate(
        requestLogQuerySchema,
        { filter_group: null, q: null, sort_by: null, sort_order: null },
        'body',
      ),
    ).toEqual({ filter_group: null, q: null, sort_by: null, sort_order: null });
  });

  it('names the offending filter for an unknown field, a wrong operator and a malformed value', () => {
    const body = {
      filter_group: {
        filters: [
          { field: 'colour', operator: 'is', value: 'red' },
          { logic: 'OR', filters: [{ field: 'cost', operator: 'contains', value: 'x' }] },
          { field: 'cost', operator: 'gte', value: 'cheap' },
        ],
      },
    };
    expect(locs(body)).toEqual([
      ['body', 'filter_group', 'filters', 0, 'field'],
      ['body', 'filter_group', 'filters', 1, 'filters', 0, 'operator'],
      ['body', 'filter_group', 'filters', 2, 'value'],
    ]);
  });

  it('puts structural errors under body.filter_group too', () => {
    expect(locs({ filter_group: { filters: 'no' } })).toEqual([['body', 'filter_group', 'filters']]);
    let deep: Record<string, unknown> = { filters: [] };
    for (let i = 0; i < MAX_GROUP_DEPTH; i++) deep = { filters: [deep] };
    expect(locs({ filter_group: deep })).toEqual([['body', 'filter_group']]);
  });

  it('rejects an unknown sort field or order', () => {
    expect(locs({ sort_by: 'price', sort_order: 'up' })).toEqual([
      ['body', 'sort_by'],
      ['body', 'sort_order'],
    ]);
  });
});

describe('matchingRequestLogs', () => {
  it('throws the 422 of a bad filter at the call, before reading anything', () => {
    const call = () =>
      matchingRequestLogs(1, { filter_group: { filters: [{ field: 'nope', operator: 'is' }] } }, 10);
    expect(call).toThrow(expect.objectContaining({ status: 422 }));
  });
});
