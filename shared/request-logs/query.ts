import { AppError } from '#shared/platform/errors.ts';
import * as z from '#shared/platform/zod.ts';
import { type CompiledFilter, compileFilter, type FilterGroup, FilterGroupSchema } from './filters.ts';
import {
  compareEntries,
  DEFAULT_SORT,
  REQUEST_LOG_SORT_FIELDS,
  type Sort,
  type SortEntry,
  type SortField,
  type SortOrder,
  sortEntry,
  TopK,
} from './query-order.ts';
import { planQuery, type QueryPlan } from './query-plan.ts';
import type { RequestLogRecord } from './record.ts';
import {
  type PartitionRead,
  queryRequestLogs,
  requestLogStartTimes,
  requestLogsByIds,
} from './repository.ts';

export { REQUEST_LOG_SORT_FIELDS, type SortField } from './query-order.ts';

/**
 * Request-log queries: `filter_group` + `q` (or `request_log_ids`), sorted, for request search and for
 * the from-filter-params dataset job. The plan (query-plan.ts) picks the partitions to read; the filter
 * runs over what is read. Memory does not grow with the number of logs read:
 * - sorted by start time, the indexes already yield matches in order: they stream, nothing is kept;
 * - sorted by anything else, only a ~50-byte entry per match survives (TopK keeps the first k), and the
 *   winners' records are fetched again by id (BatchGetItem) in their final order.
 * Reasoning and costs: docs/request-logs.md.
 */
export interface RequestLogQuery {
  filter_group?: FilterGroup | null;
  q?: string | null;
  request_log_ids?: number[] | null;
  sort_by?: SortField | null;
  sort_order?: SortOrder | null;
  limit?: number | null;
}

/** Where a filter sits in the request bodies that carry one; 422 details point below it. */
const FILTER_LOC = ['body', 'filter_group'];

/** filter_group checked completely (fields, operators, values), so a bad filter is a 422 of the request. */
const filterGroupField = FilterGroupSchema.check(
  z.superRefine((group, ctx) => {
    try {
      compileFilter(group, null, []);
    } catch (error) {
      if (!(error instanceof AppError) || !error.detail) throw error;
      for (const issue of error.detail) ctx.addIssue({ code: 'custom', path: issue.loc, message: issue.msg });
    }
  }),
);

/**
 * The body fields request search and from-filter-params share (reference OpenAPI, RequestLogQuery).
 * `sort_order` must come with `sort_by` (a 422 otherwise): each route extends this object and then
 * applies `sortOrderNeedsSortBy` (a refinement would not survive `.extend`).
 */
export const requestLogQuerySchema = z.object({
  filter_group: z.nullish(filterGroupField),
  q: z.nullish(z.string().check(z.maxLength(1024, 'q is at most 1024 characters'))),
  sort_by: z.nullish(z.enum(REQUEST_LOG_SORT_FIELDS)),
  sort_order: z.nullish(z.enum(['asc', 'desc'])),
});

interface PreparedQuery {
  workspaceId: number;
  filter: CompiledFilter;
  plan: QueryPlan;
  sort: Sort;
}

/** Compiles the filter (a 422 when it is invalid, even when request_log_ids take precedence) and plans. */
function prepare(workspaceId: number, query: RequestLogQuery): PreparedQuery {
  const filter = compileFilter(query.filter_group, query.q, FILTER_LOC);
  return {
    workspaceId,
    filter,
    plan: planQuery(filter.hints, query.request_log_ids),
    sort: { field: query.sort_by ?? DEFAULT_SORT.field, order: query.sort_order ?? DEFAULT_SORT.order },
  };
}

/** Reads stop after this many logs (unbounded for jobs); `exhausted` says whether logs were left unread. */
interface Budget {
  left: number;
  exhausted: boolean;
  /** The last log examined, in the read's order: where a read cut short by the budget can resume. */
  last?: RequestLogRecord;
}

const unbounded = (): Budget => ({ left: Number.POSITIVE_INFINITY, exhausted: false });

/** The index plan's matches in time order (start time, then id), in batches. */
async function* indexMatches(
  p: PreparedQuery,
  plan: Extract<QueryPlan, { kind: 'index' }>,
  order: SortOrder,
  budget: Budget,
  read: PartitionRead = {},
): AsyncGenerator<RequestLogRecord[]> {
  const streams = plan.partitions.map((partition) =>
    queryRequestLogs(p.workspaceId, partition, plan.range, order, read),
  );
  const { matches } = p.filter;
  const batchSize = Math.min(MERGE_BATCH, read.expected ?? MERGE_BATCH);
  for await (const batch of mergeInTimeOrder(streams, order, batchSize)) {
    if (budget.left <= 0) {
      budget.exhausted = true;
      return;
    }
    const examined = batch.length > budget.left ? batch.slice(0, budget.left) : batch;
    budget.left -= examined.length;
    budget.last = examined.at(-1);
    const matched = examined.filter((record) => matches(record));
    if (matched.length > 0) yield matched;
    if (examined !== batch) {
      budget.exhausted = true;
      return;
    }
  }
}

const MERGE_BATCH = 500;

/**
 * One time-ordered stream out of several (a k-way merge); k is small, so the head is found by a linear
 * pass. A stream's next page is pulled only when its head is needed, after the batch before it was
 * handed over: a caller that stops after a batch reads no page it did not use.
 */
async function* mergeInTimeOrder(
  streams: AsyncGenerator<RequestLogRecord[]>[],
  order: SortOrder,
  batchSize = MERGE_BATCH,
): AsyncGenerator<RequestLogRecord[]> {
  try {
    if (streams.length === 1) {
      yield* streams[0]!;
      return;
    }
    const sign = order === 'asc' ? 1 : -1;
    const before = (a: RequestLogRecord, b: RequestLogRecord) =>
      sign * (a.request_start_time - b.request_start_time || a.id - b.id) < 0;
    const pull = async (i: number) => {
      const next = await streams[i]!.next();
      return next.done ? undefined : { page: next.value, at: 0 };
    };
    const heads = await Promise.all(streams.map((_, i) => pull(i)));
    let out: RequestLogRecord[] = [];
    for (;;) {
      await Promise.all(
        heads.map(async (head, i) => {
          if (head && head.at === head.page.length) heads[i] = await pull(i);
        }),
      );
      let best = -1;
      heads.forEach((head, i) => {
        const current = heads[best];
        if (head && (!current || before(head.page[head.at]!, current.page[current.at]!))) best = i;
      });
      const head = heads[best];
      if (!head) break;
      out.push(head.page[head.at++]!);
      if (out.length >= batchSize) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  } finally {
    await Promise.all(streams.map((stream) => stream.return(undefined)));
  }
}

/**
 * The first `k` matches in sort order as entries (only those past `after`, when given), and how many
 * matched in all.
 */
async function selectTop(
  p: PreparedQuery,
  k: number,
  budget: Budget,
  after?: SortEntry,
): Promise<{ entries: SortEntry[]; total: number }> {
  const { plan, sort } = p;
  const kept = new TopK(k, sort.order);
  const compare = compareEntries(sort.order);
  const top = { add: (entry: SortEntry) => (!after || compare(entry, after) > 0) && kept.add(entry) };
  let total = 0;
  if (plan.kind === 'ids') {
    // The ids take precedence over the filter: every named log of the workspace is in.
    if (sort.field === 'request_start_time') {
      for await (const found of requestLogStartTimes(p.workspaceId, plan.ids)) {
        for (const { id, start } of found) top.add({ value: start, start, id });
        total += found.length;
      }
    } else {
      for await (const records of requestLogsByIds(p.workspaceId, plan.ids)) {
        for (const record of records) top.add(sortEntry(sort.field, record));
        total += records.length;
      }
    }
  } else if (plan.kind === 'index') {
    // Newest first, so that a search cut short by its budget has looked at the most recent logs.
    for await (const matched of indexMatches(p, plan, 'desc', budget)) {
      for (const record of matched) top.add(sortEntry(sort.field, record));
      total += matched.length;
    }
  }
  return { entries: kept.sorted(), total };
}

const streamsInOrder = (p: PreparedQuery): p is PreparedQuery & { plan: { kind: 'index' } } =>
  p.plan.kind === 'index' && p.sort.field === 'request_start_time';

/**
 * Matching logs of the workspace in sort order, at most `cap` (and at most `limit`), in batches of
 * complete records. Throws the filter's 422 (AppError) for a bad filter, at the call.
 */
export function matchingRequestLogs(
  workspaceId: number,
  query: RequestLogQuery,
  cap: number,
): AsyncIterable<RequestLogRecord[]> {
  const p = prepare(workspaceId, query);
  return emitMatches(p, Math.min(cap, query.limit ?? Number.POSITIVE_INFINITY));
}

async function* emitMatches(p: PreparedQuery, max: number): AsyncGenerator<RequestLogRecord[]> {
  if (p.plan.kind === 'empty' || !(max > 0)) return;
  if (streamsInOrder(p)) {
    let left = max;
    for await (const matched of indexMatches(p, p.plan, p.sort.order, unbounded())) {
      const batch = matched.length > left ? matched.slice(0, left) : matched;
      left -= batch.length;
      yield batch;
      if (left === 0) return;
    }
    return;
  }
  const { entries } = await selectTop(p, max, unbounded());
  yield* requestLogsByIds(
    p.workspaceId,
    entries.map((entry) => entry.id),
  );
}

export interface RequestLogWindow {
  /** The matches at [offset, offset + count) of the sort order (of those past `after`, when given). */
  records: RequestLogRecord[];
  /** How many logs matched among those examined; null when the window was asked without a count. */
  total: number | null;
  /** Whether a match was found past the window. */
  more: boolean;
  /** False when the examination budget ran out: total and window cover the logs read, not all of them. */
  complete: boolean;
  /**
   * Where the next window starts: the last record's place, or, when a time-ordered read ran out of
   * budget before a match past the window, the place of the last log examined (the next window examines
   * the logs after it). Undefined when nothing is left.
   */
  next?: SortEntry;
}

export interface WindowRequest {
  offset: number;
  count: number;
  maxExamined: number;
  /** Only the matches past this place of the sort order (cursor paging). */
  after?: SortEntry;
  /**
   * False: no `total`; in time order the read stops once the window and one match past it are found
   * (the reason a cursor page costs about a page of reads). Default true.
   */
  countAll?: boolean;
}

/**
 * One window of the sorted matches and their count, for page-style answers. At most `maxExamined`
 * logs are read (the newest ones of the plan, or the oldest ones for an ascending time order, past
 * `after` when counting is off).
 */
export async function requestLogWindow(
  workspaceId: number,
  query: RequestLogQuery,
  window: WindowRequest,
): Promise<RequestLogWindow> {
  const p = prepare(workspaceId, query);
  const { offset, count, after, countAll = true } = window;
  const budget: Budget = { left: window.maxExamined, exhausted: false };
  if (p.plan.kind === 'empty')
    return { records: [], total: countAll ? 0 : null, more: false, complete: true };
  const compare = compareEntries(p.sort.order);
  const end = offset + count;

  const records: RequestLogRecord[] = [];
  let total = 0;
  let more = false;
  if (streamsInOrder(p)) {
    // Without a count, the cursor's place bounds the index Query itself and reading stops after the window.
    const read: PartitionRead = countAll
      ? {}
      : { after: after && { start: after.start, id: after.id }, expected: end + 1 };
    let position = 0;
    reading: for await (const matched of indexMatches(p, p.plan, p.sort.order, budget, read)) {
      for (const record of matched) {
        total++;
        if (after && compare(sortEntry(p.sort.field, record), after) <= 0) continue;
        if (position >= offset && position < end) records.push(record);
        else if (position >= end) {
          more = true;
          if (!countAll) break reading;
        }
        position++;
      }
    }
  } else {
    const { entries, total: matched } = await selectTop(p, end + 1, budget, after);
    total = matched;
    more = entries.length > end;
    const ids = entries.slice(offset, end).map((entry) => entry.id);
    for await (const batch of requestLogsByIds(workspaceId, ids)) records.push(...batch);
  }
  const complete = !budget.exhausted;
  const last = records.at(-1);
  // Only a time-ordered read resumes where its budget ran out; another order ranks what it examined.
  const resumeAt = streamsInOrder(p) && !complete && !more ? budget.last : undefined;
  const nextRecord = more ? last : resumeAt;
  return {
    records,
    total: countAll ? total : null,
    more,
    complete,
    next: nextRecord && sortEntry(p.sort.field, nextRecord),
  };
}

/**
 * Every match among at most `maxExamined` logs of the plan, newest first, handed to `visit` batch by
 * batch: for aggregates over logs (analytics questions the rollups cannot answer). `complete` is false
 * when the budget ran out before the plan did. Throws the filter's 422 for a bad filter.
 */
export async function examineMatches(
  workspaceId: number,
  query: RequestLogQuery,
  maxExamined: number,
  visit: (records: RequestLogRecord[]) => void,
): Promise<{ complete: boolean }> {
  // Without request_log_ids: the plan reads index partitions, or nothing can match.
  const p = prepare(workspaceId, { ...query, request_log_ids: null });
  if (p.plan.kind !== 'index') return { complete: true };
  const budget: Budget = { left: maxExamined, exhausted: false };
  for await (const matched of indexMatches(p, p.plan, 'desc', budget)) visit(matched);
  return { complete: !budget.exhausted };
}
