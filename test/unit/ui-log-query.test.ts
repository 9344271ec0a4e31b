import { describe, expect, it } from 'vitest';
import {
  FIELDS as SERVER_FIELDS,
  OPERATORS as SERVER_OPERATORS,
} from '#shared/request-logs/filters/fields.ts';
import {
  addFilter,
  FIELDS,
  OPERATORS,
  readLogQuery,
  toApiQuery,
  writeLogQuery,
} from '../../ui/src/lib/log-query.ts';

describe("the dashboard's request-log query", () => {
  it('offers exactly the fields and operators the search API accepts', () => {
    expect(FIELDS).toEqual(
      Object.fromEntries(Object.entries(SERVER_FIELDS).map(([name, def]) => [name, def.kind])),
    );
    expect(OPERATORS).toEqual(SERVER_OPERATORS);
  });

  it('round-trips through the URL and reads a hand-broken URL as the defaults', () => {
    const query = addFilter(readLogQuery(new URLSearchParams('range=7d&q=refund')), {
      field: 'status',
      operator: 'is',
      value: 'ERROR',
    });
    const params = new URLSearchParams(
      Object.entries(writeLogQuery(query)).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    expect(readLogQuery(params)).toEqual(query);
    expect(readLogQuery(new URLSearchParams('range=2y&f=%7Bnot-json&from=yesterday&to=x'))).toEqual({
      range: '24h',
      q: '',
      filters: [],
    });
  });

  it("puts the time window first in the API's filter_group", () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const api = toApiQuery(
      { range: '1h', q: '', filters: [{ field: 'engine', operator: 'is', value: 'gpt-4o' }] },
      now,
    );
    expect(api).toEqual({
      filter_group: {
        logic: 'AND',
        filters: [
          {
            field: 'request_start_time',
            operator: 'between',
            value: ['2026-11-28T11:00:00.000Z', '2026-11-28T12:00:00.000Z'],
          },
          { field: 'engine', operator: 'is', value: 'gpt-4o' },
        ],
      },
    });
  });
});
