import type { ScanHints } from './filters.ts';
import {
  INDEXED_STATUSES,
  type IndexedStatus,
  MAX_SORTABLE_MS,
  type RequestLogPartition,
  SHARDS,
  type TimeRange,
} from './repository.ts';

/**
 * How a request-log query reads the table, chosen from what every match must satisfy. Never a Scan:
 * - `ids`: the client named the logs (request_log_ids): BatchGetItem, 100 keys per call;
 * - `index`: Query each partition within the time range (GSI2 per prompt id, GSI3 per status when only
 *   WARNING/ERROR/RUNNING can match, else GSI1, every log; GSI1 and GSI2 in every shard), merged into one time order;
 * - `empty`: the filter can match nothing, so nothing is read.
 * The filter itself then runs over the records read. Costs per plan: docs/request-logs.md.
 */
export type QueryPlan =
  | { kind: 'empty' }
  | { kind: 'ids'; ids: number[] }
  | { kind: 'index'; partitions: RequestLogPartition[]; range: TimeRange };

export function planQuery(hints: ScanHints, requestLogIds?: readonly number[] | null): QueryPlan {
  // An empty list names no logs, so like a missing one it leaves the filter in charge (as a falsy list does in PromptLayer's API).
  if (requestLogIds && requestLogIds.length > 0) return { kind: 'ids', ids: [...new Set(requestLogIds)] };

  const range: TimeRange = {
    from: Math.max(0, Math.ceil(hints.startTimeFrom ?? 0)),
    to: Math.min(MAX_SORTABLE_MS, Math.floor(hints.startTimeTo ?? MAX_SORTABLE_MS)),
  };
  if (range.from > range.to) return { kind: 'empty' };
  const { promptIds, statuses } = hints;
  if (promptIds?.length === 0 || statuses?.length === 0) return { kind: 'empty' };

  if (promptIds) {
    // Prompt ids are integers; any other number names no log.
    const ids = [...new Set(promptIds)].filter(Number.isSafeInteger).sort((a, b) => a - b);
    if (ids.length === 0) return { kind: 'empty' };
    const partitions = ids.flatMap((promptId) =>
      SHARDS.map((shard) => ({ index: 'GSI2' as const, promptId, shard })),
    );
    return { kind: 'index', partitions, range };
  }
  if (statuses?.every(isIndexedStatus)) {
    return { kind: 'index', partitions: statuses.map((status) => ({ index: 'GSI3', status })), range };
  }
  return { kind: 'index', partitions: SHARDS.map((shard) => ({ index: 'GSI1' as const, shard })), range };
}

const isIndexedStatus = (status: string): status is IndexedStatus =>
  (INDEXED_STATUSES as readonly string[]).includes(status);
