import { describe, expect, it } from 'vitest';
import { LISTED_REQUEST_LOG_IDS, listedFilterParams } from '#shared/datasets/filter-params.ts';

/** What GET /datasets shows of a dataset's stored from-filter-params parameters: bounded, and says so. */
describe('listedFilterParams', () => {
  it('shows small parameters as they are', () => {
    const params = {
      request_log_ids: [3, 1, 2],
      filter_group: { filters: [{ field: 'cost', operator: 'gt', value: 1 }] },
      q: 'hi',
    };

    expect(listedFilterParams(params)).toEqual({
      params: { ...params, request_log_ids_count: 3 },
      truncated: false,
    });
    expect(listedFilterParams({ q: 'x' })).toEqual({ params: { q: 'x' }, truncated: false });
  });

  it('keeps the first 100 of 50,000 ids, with their count', () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => 50_000 - i);

    const { params, truncated } = listedFilterParams({ request_log_ids: ids, sort_by: 'cost' });

    expect(truncated).toBe(true);
    expect(params).toEqual({
      request_log_ids: ids.slice(0, LISTED_REQUEST_LOG_IDS),
      request_log_ids_count: 50_000,
      sort_by: 'cost',
    });
  });

  it('leaves out a filter_group too large for a list', () => {
    const values = Array.from({ length: 1000 }, (_, i) => `model-${i}-${'x'.repeat(20)}`);
    const filter_group = { filters: [{ field: 'engine', operator: 'in', value: values }] };

    const listing = listedFilterParams({ filter_group, q: 'kept' });

    expect(listing).toEqual({ params: { q: 'kept' }, truncated: true });
    expect(JSON.stringify(listing).length).toBeLessThan(1024);
  });
});
