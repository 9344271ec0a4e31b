import { describe, expect, it } from 'vitest';
import { compareEntries, type SortEntry, sortEntry, TopK } from '#shared/request-logs/query-order.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';

const record = (overrides: Partial<RequestLogRecord>): RequestLogRecord =>
  ({
    id: 1,
    request_start_time: 1000,
    request_end_time: 1500,
    input_tokens: 10,
    output_tokens: 20,
    price: 0.5,
    status: 'SUCCESS',
    ...overrides,
  }) as RequestLogRecord;

describe('sort values', () => {
  it('reads each sort field off the record', () => {
    const r = record({ id: 9, price: 0.25, status: 'WARNING' });
    expect(sortEntry('request_start_time', r)).toEqual({ value: 1000, start: 1000, id: 9 });
    expect(sortEntry('input_tokens', r).value).toBe(10);
    expect(sortEntry('output_tokens', r).value).toBe(20);
    expect(sortEntry('cost', r).value).toBe(0.25);
    expect(sortEntry('latency_ms', r).value).toBe(500);
  });

  it('orders status by severity', () => {
    const ranks = (['ERROR', 'SUCCESS', 'WARNING'] as const).map(
      (status) => sortEntry('status', record({ status })).value,
    );
    expect(ranks).toEqual([2, 0, 1]);
  });
});

describe('compareEntries', () => {
  const entries: SortEntry[] = [
    { value: 5, start: 100, id: 1 },
    { value: 1, start: 300, id: 2 },
    { value: 5, start: 200, id: 3 },
    { value: 5, start: 200, id: 4 },
  ];

  it('sorts ascending with ties by start time then id', () => {
    expect([...entries].sort(compareEntries('asc')).map((e) => e.id)).toEqual([2, 1, 3, 4]);
  });

  it('sorts descending with ties reversed too', () => {
    expect([...entries].sort(compareEntries('desc')).map((e) => e.id)).toEqual([4, 3, 1, 2]);
  });
});

describe('TopK', () => {
  it('keeps the first k of many in order, holding at most 2k', () => {
    const top = new TopK(10, 'desc');
    const values = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    for (const [i, value] of values.entries()) top.add({ value, start: 0, id: i + 1 });
    expect(top.sorted().map((e) => e.value)).toEqual([999, 998, 997, 996, 995, 994, 993, 992, 991, 990]);
  });

  it('returns fewer when fewer were added, and nothing for k = 0', () => {
    const top = new TopK(5, 'asc');
    top.add({ value: 2, start: 0, id: 1 });
    top.add({ value: 1, start: 0, id: 2 });
    expect(top.sorted().map((e) => e.id)).toEqual([2, 1]);
    const none = new TopK(0, 'asc');
    none.add({ value: 1, start: 0, id: 1 });
    expect(none.sorted()).toEqual([]);
  });
});
