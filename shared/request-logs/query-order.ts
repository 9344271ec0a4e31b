import type { RequestLogRecord } from './record.ts';

/** The orders a request-log query can ask for (reference OpenAPI, RequestLogQuery.sort_by). */
export const REQUEST_LOG_SORT_FIELDS = [
  'request_start_time',
  'input_tokens',
  'output_tokens',
  'cost',
  'latency_ms',
  'status',
  'replay_of',
] as const;
export type SortField = (typeof REQUEST_LOG_SORT_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';

export interface Sort {
  field: SortField;
  order: SortOrder;
}

/** Newest first, as a log viewer lists them. */
export const DEFAULT_SORT: Sort = { field: 'request_start_time', order: 'desc' };

/** Status sorts by severity, so `desc` puts errors first (alphabetical order would mean nothing). */
// A RUNNING replay has no outcome yet: it ranks below every finished one.
const STATUS_RANK: Record<RequestLogRecord['status'], number> = {
  RUNNING: -1,
  SUCCESS: 0,
  WARNING: 1,
  ERROR: 2,
};

const SORT_VALUE: Record<SortField, (r: RequestLogRecord) => number> = {
  request_start_time: (r) => r.request_start_time,
  input_tokens: (r) => r.input_tokens,
  output_tokens: (r) => r.output_tokens,
  cost: (r) => r.price,
  latency_ms: (r) => r.request_end_time - r.request_start_time,
  status: (r) => STATUS_RANK[r.status],
  // Logs that replay nothing sort as 0, before every replay (ids are positive).
  replay_of: (r) => r.replay_of ?? 0,
};

/**
 * What is kept of a match while the rest are still being read, when the order is not the order of the
 * index: about 50 bytes instead of the record, which is fetched again by id once its place is known.
 */
export interface SortEntry {
  value: number;
  start: number;
  id: number;
}

export const sortEntry = (field: SortField, record: RequestLogRecord): SortEntry => ({
  value: SORT_VALUE[field](record),
  start: record.request_start_time,
  id: record.id,
});

/** Ties break by start time, then id, in the same direction: the order of the time indexes, so pages are stable. */
export function compareEntries(order: SortOrder): (a: SortEntry, b: SortEntry) => number {
  const sign = order === 'asc' ? 1 : -1;
  return (a, b) => sign * (a.value - b.value || a.start - b.start || a.id - b.id);
}

/**
 * The first `k` entries in sort order out of any number added, holding at most 2k: when the buffer is
 * full it is sorted and cut back to k. Sorting n entries this way costs O(n log k).
 */
export class TopK {
  readonly k: number;
  #entries: SortEntry[] = [];
  readonly #compare: (a: SortEntry, b: SortEntry) => number;

  constructor(k: number, order: SortOrder) {
    this.k = k;
    this.#compare = compareEntries(order);
  }

  add(entry: SortEntry): void {
    if (this.k <= 0) return;
    this.#entries.push(entry);
    if (this.#entries.length >= 2 * this.k) this.#trim();
  }

  /** The kept entries in sort order. */
  sorted(): SortEntry[] {
    this.#trim();
    return this.#entries;
  }

  #trim(): void {
    this.#entries.sort(this.#compare);
    if (this.#entries.length > this.k) this.#entries.length = this.k;
  }
}
