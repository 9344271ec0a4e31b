import { createHash } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '#shared/platform/batch.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';

/**
 * The trace index: one summary item per trace, so a workspace lists its traces newest first with one
 * Query a page. It lives in the trace's partition (`W#<ws>#TR#<trace_id>` / `SUMMARY`, outside the `SP#`
 * range a trace read queries), keyed by the trace id so every batch can update it without reading it,
 * and is listed through GSI1 `W#<ws>#TRACES` / `<start ns, 21 digits>#<trace_id>`. When an earlier span
 * arrives, the update that lowers the start also rewrites GSI1SK, and the index moves the trace to its
 * place: the list is ordered by the trace's true start (earliest span seen), not by arrival.
 *
 * Counts are kept with ADD of each batch's deltas (commutative, so concurrent batches of one trace lose
 * nothing); start, end and the root's name with conditional SETs that only ever move towards the
 * earliest start, the latest end and the earliest root. A batch's deltas compare every span with the item
 * it replaces (read just before the write), so a span sent again counts once, and a span re-sent with
 * another status or log moves the error and log counts by the difference.
 */
export const TRACE_SUMMARY_SK = 'SUMMARY';

/** Nanosecond times as fixed-width strings: their string order is their time order. */
const NS_DIGITS = 21;
export const padNanos = (ns: string | bigint) => ns.toString().padStart(NS_DIGITS, '0');

export const traceListPartition = (workspaceId: number) => `W#${workspaceId}#TRACES`;
export const traceListSortKey = (startNs: string, traceId: string) => `${padNanos(startNs)}#${traceId}`;

const summaryKey = (workspaceId: number, traceId: string) => ({
  PK: `W#${workspaceId}#TR#${traceId}`,
  SK: TRACE_SUMMARY_SK,
});

/**
 * Which of these traces have a summary already (read consistently). A span of a trace without one was
 * never counted, so it needs no comparison with what it replaces: a trace's first batch, and the retry of
 * a call that failed before its summary update, count all their spans.
 */
export async function indexedTraces(workspaceId: number, traceIds: readonly string[]): Promise<Set<string>> {
  const items = await batchGetItems(
    traceIds.map((traceId) => summaryKey(workspaceId, traceId)),
    { projection: 'traceId', consistent: true },
  );
  return new Set(items.map((item) => item.traceId as string));
}

/** What the index reads of a span's summary (repository.ts SpanRecord, which imports this module). */
interface IndexedSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  start_ns: string;
  end_ns: string;
  status: { status_code: string };
  request_log_id: number | null;
  request_log: { price: number } | null;
}

const ERROR_STATUS = 'StatusCode.ERROR';
const isError = (record: IndexedSpan) => record.status.status_code === ERROR_STATUS;
const priceOf = (record: IndexedSpan) => record.request_log?.price ?? 0;

/** What one batch changes in one trace's summary. */
interface TraceDelta {
  spans: number;
  errors: number;
  logs: number;
  cost: number;
  startNs: bigint;
  endNs: bigint;
  root?: { name: string; startNs: bigint };
  /** The batch's identity for this trace (a hash of its spans here): a retry of it is not counted again. */
  batch: string;
}

/**
 * The change each trace's summary takes from a batch of written spans, given the items they replaced
 * (`before`, by `<trace_id>/<span_id>`; absent for a new span).
 */
export function traceDeltas(
  written: readonly IndexedSpan[],
  before: ReadonlyMap<string, IndexedSpan>,
): Map<string, TraceDelta> {
  const deltas = new Map<string, TraceDelta>();
  const hashes = new Map<string, ReturnType<typeof createHash>>();
  for (const record of written) {
    const start = BigInt(record.start_ns);
    const end = BigInt(record.end_ns);
    let delta = deltas.get(record.trace_id);
    if (!delta) {
      delta = { spans: 0, errors: 0, logs: 0, cost: 0, startNs: start, endNs: end, batch: '' };
      deltas.set(record.trace_id, delta);
      hashes.set(record.trace_id, createHash('sha256'));
    }
    hashes.get(record.trace_id)?.update(`${JSON.stringify(record)}\n`);
    const old = before.get(`${record.trace_id}/${record.span_id}`);
    delta.spans += old ? 0 : 1;
    delta.errors += Number(isError(record)) - Number(old ? isError(old) : false);
    delta.logs += Number(record.request_log_id != null) - Number(old?.request_log_id != null);
    delta.cost += priceOf(record) - (old ? priceOf(old) : 0);
    if (start < delta.startNs) delta.startNs = start;
    if (end > delta.endNs) delta.endNs = end;
    if (record.parent_id === null && (!delta.root || start < delta.root.startNs))
      delta.root = { name: record.name, startNs: start };
  }
  for (const [traceId, delta] of deltas)
    delta.batch = hashes.get(traceId)?.digest('base64url').slice(0, 22) ?? '';
  return deltas;
}

/**
 * Applies one batch's change to a trace's summary, before the batch's spans are written: the counts in
 * one UpdateItem (which answers the summary as it now is), then only the conditional SETs that would
 * still improve on it. The counts are skipped when the summary's last batch is this one: a call that
 * failed after counting (its spans not all written) and is sent again compares its spans with what the
 * failed call left, so counting again would count them twice; not counting first would lose them.
 */
export async function updateTraceSummary(workspaceId: number, traceId: string, delta: TraceDelta) {
  const Key = summaryKey(workspaceId, traceId);
  const counted = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key,
        UpdateExpression:
          'SET traceId = :id, lastBatch = :batch ADD spanCount :spans, errorCount :errors, logCount :logs, cost :cost',
        ConditionExpression: 'attribute_not_exists(lastBatch) OR lastBatch <> :batch',
        ExpressionAttributeValues: {
          ':id': traceId,
          ':batch': delta.batch,
          ':spans': delta.spans,
          ':errors': delta.errors,
          ':logs': delta.logs,
          // Float deltas: rounded so that a re-sent span's +p - p leaves no residue.
          ':cost': roundCost(delta.cost),
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  // A batch counted already: its start, end and root were set then, or are set now by the conditions.
  const now = counted?.Attributes ?? {};
  const start = padNanos(delta.startNs);
  const end = padNanos(delta.endNs);
  const writes: Promise<unknown>[] = [];
  const setIf = (set: string, condition: string, values: Record<string, unknown>) =>
    writes.push(
      unlessConditionFails(
        dynamo.send(
          new UpdateCommand({
            TableName: table(),
            Key,
            UpdateExpression: `SET ${set}`,
            ConditionExpression: condition,
            ExpressionAttributeValues: values,
          }),
        ),
      ),
    );
  if (now.startNs === undefined || start < (now.startNs as string))
    setIf(
      'startNs = :start, GSI1PK = :gpk, GSI1SK = :gsk',
      'attribute_not_exists(startNs) OR startNs > :start',
      {
        ':start': start,
        ':gpk': traceListPartition(workspaceId),
        ':gsk': traceListSortKey(start, traceId),
      },
    );
  if (now.endNs === undefined || end > (now.endNs as string))
    setIf('endNs = :end', 'attribute_not_exists(endNs) OR endNs < :end', { ':end': end });
  const root = delta.root;
  if (root && (now.rootStartNs === undefined || padNanos(root.startNs) <= (now.rootStartNs as string)))
    // `<=`: a root sent again (renamed) takes its new name.
    setIf(
      'rootName = :name, rootStartNs = :rootStart',
      'attribute_not_exists(rootStartNs) OR rootStartNs >= :rootStart',
      {
        ':name': root.name,
        ':rootStart': padNanos(root.startNs),
      },
    );
  await Promise.all(writes);
}

const roundCost = (cost: number) => Math.round(cost * 1e10) / 1e10;

/** A trace as the index holds it. */
export interface TraceSummary {
  traceId: string;
  startNs: string;
  endNs: string;
  rootName: string | null;
  spanCount: number;
  errorCount: number;
  logCount: number;
  cost: number;
}

/** Where a page of the list ended: the last trace's start and id. */
export interface TraceListPosition {
  startNs: string;
  traceId: string;
}

/**
 * One page of a workspace's traces, newest start first, within [fromNs, toNs] and after `after`: one
 * Query of GSI1. `next` is null on the last page.
 */
export async function queryTraceSummaries(
  workspaceId: number,
  limit: number,
  window: { fromNs: bigint; toNs: bigint },
  after?: TraceListPosition,
): Promise<{ traces: TraceSummary[]; next: TraceListPosition | null }> {
  const lower = `${padNanos(window.fromNs)}#`;
  // `~` sorts after every hex digit: the whole nanosecond `toNs` is included.
  const upper = `${padNanos(window.toNs)}#~`;
  const afterKey = after && traceListSortKey(after.startNs, after.traceId);
  // A cursor outside the window (a client changed from/to): before it nothing is left, after it the
  // window's start is where the page begins.
  if (afterKey !== undefined && afterKey <= lower) return { traces: [], next: null };
  const startKey =
    afterKey !== undefined && afterKey < upper
      ? {
          ...summaryKey(workspaceId, after!.traceId),
          GSI1PK: traceListPartition(workspaceId),
          GSI1SK: afterKey,
        }
      : undefined;
  const result = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lower AND :upper',
      ExpressionAttributeValues: { ':pk': traceListPartition(workspaceId), ':lower': lower, ':upper': upper },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const traces = (result.Items ?? []).map(
    (item): TraceSummary => ({
      traceId: item.traceId as string,
      startNs: item.startNs as string,
      endNs: (item.endNs as string | undefined) ?? (item.startNs as string),
      rootName: (item.rootName as string | undefined) ?? null,
      spanCount: Number(item.spanCount ?? 0),
      errorCount: Number(item.errorCount ?? 0),
      logCount: Number(item.logCount ?? 0),
      cost: Number(item.cost ?? 0),
    }),
  );
  const last = traces.at(-1);
  return {
    traces,
    next: result.LastEvaluatedKey && last ? { startNs: last.startNs, traceId: last.traceId } : null,
  };
}
