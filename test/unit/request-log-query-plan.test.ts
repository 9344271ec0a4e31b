import { describe, expect, it } from 'vitest';
import { compileFilter, type FilterGroup } from '#shared/request-logs/filters.ts';
import { planQuery } from '#shared/request-logs/query-plan.ts';
import { MAX_SORTABLE_MS } from '#shared/request-logs/repository.ts';

const T1 = Date.UTC(2024, 4, 1);
const T2 = Date.UTC(2024, 4, 8);
const ALL_TIME = { from: 0, to: MAX_SORTABLE_MS };
/** Every shard of GSI1, and of GSI2 for one prompt: the writes spread a workspace's logs over them. */
const GSI1_SHARDS = [0, 1, 2, 3].map((shard) => ({ index: 'GSI1', shard }));
const gsi2Shards = (promptId: number) => [0, 1, 2, 3].map((shard) => ({ index: 'GSI2', promptId, shard }));

const and = (...filters: FilterGroup['filters']): FilterGroup => ({ logic: 'AND', filters });
const plan = (group: FilterGroup | null, ids?: number[] | null) => planQuery(compileFilter(group).hints, ids);

describe('planQuery', () => {
  it('reads every log through GSI1 when nothing bounds the query', () => {
    expect(plan(null)).toEqual({ kind: 'index', partitions: GSI1_SHARDS, range: ALL_TIME });
  });

  it('bounds GSI1 by the time range of the filter', () => {
    const group = and({
      field: 'request_start_time',
      operator: 'between',
      value: ['2024-05-01T00:00:00Z', '2024-05-08T00:00:00Z'],
    });
    expect(plan(group)).toEqual({
      kind: 'index',
      partitions: GSI1_SHARDS,
      range: { from: T1, to: T2 + 999 },
    });
  });

  it('uses GSI2 for a prompt id, time-bounded', () => {
    const group = and(
      { field: 'prompt_id', operator: 'eq', value: 7 },
      { field: 'request_start_time', operator: 'after', value: '2024-05-01' },
    );
    expect(plan(group)).toEqual({
      kind: 'index',
      partitions: gsi2Shards(7),
      range: { from: T1 + 86_400_000, to: MAX_SORTABLE_MS },
    });
  });

  it('prefers the prompt partition over the status partitions', () => {
    const group = and(
      { field: 'status', operator: 'is', value: 'ERROR' },
      { field: 'prompt_id', operator: 'eq', value: 3 },
    );
    expect(plan(group)).toMatchObject({ partitions: gsi2Shards(3) });
  });

  it('uses GSI3 when only WARNING, ERROR or RUNNING can match', () => {
    expect(plan(and({ field: 'status', operator: 'in', value: ['ERROR', 'WARNING'] }))).toEqual({
      kind: 'index',
      partitions: [
        { index: 'GSI3', status: 'WARNING' },
        { index: 'GSI3', status: 'ERROR' },
      ],
      range: ALL_TIME,
    });
    expect(plan(and({ field: 'status', operator: 'is_not', value: 'SUCCESS' }))).toMatchObject({
      partitions: [
        { index: 'GSI3', status: 'WARNING' },
        { index: 'GSI3', status: 'ERROR' },
        { index: 'GSI3', status: 'RUNNING' },
      ],
    });
  });

  it('falls back to GSI1 when SUCCESS can match', () => {
    expect(plan(and({ field: 'status', operator: 'in', value: ['SUCCESS', 'ERROR'] }))).toMatchObject({
      partitions: GSI1_SHARDS,
    });
  });

  it('ignores conditions under an OR: they bound nothing', () => {
    const group: FilterGroup = {
      logic: 'OR',
      filters: [
        { field: 'prompt_id', operator: 'eq', value: 1 },
        { field: 'status', operator: 'is', value: 'ERROR' },
      ],
    };
    expect(plan(group)).toEqual({ kind: 'index', partitions: GSI1_SHARDS, range: ALL_TIME });
  });

  it('reads nothing when the filter cannot match', () => {
    expect(
      plan(
        and(
          { field: 'prompt_id', operator: 'eq', value: 1 },
          { field: 'prompt_id', operator: 'eq', value: 2 },
        ),
      ),
    ).toEqual({ kind: 'empty' });
    expect(
      plan(
        and(
          { field: 'status', operator: 'is', value: 'ERROR' },
          { field: 'status', operator: 'is', value: 'SUCCESS' },
        ),
      ),
    ).toEqual({ kind: 'empty' });
    expect(
      plan(
        and(
          { field: 'request_start_time', operator: 'after', value: '2024-05-08' },
          { field: 'request_start_time', operator: 'before', value: '2024-05-01' },
        ),
      ),
    ).toEqual({ kind: 'empty' });
    expect(plan(and({ field: 'request_start_time', operator: 'before', value: '1970-01-01' }))).toEqual({
      kind: 'empty',
    });
    expect(plan(and({ field: 'prompt_id', operator: 'eq', value: 1.5 }))).toEqual({ kind: 'empty' });
  });

  it('gets named logs by id, deduplicated, in precedence over the filter', () => {
    const group = and({ field: 'prompt_id', operator: 'eq', value: 7 });
    expect(plan(group, [5, 3, 5, 9])).toEqual({ kind: 'ids', ids: [5, 3, 9] });
  });

  it('treats an empty id list as no list', () => {
    expect(plan(null, [])).toMatchObject({ kind: 'index' });
  });
});
