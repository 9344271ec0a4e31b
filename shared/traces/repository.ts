import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchWriteItems, type WriteRequest } from '#shared/platform/batch.ts';
import { getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { getItem, putNewItem } from '#shared/platform/items.ts';
import type { RequestLogSummary } from './schemas.ts';
import { indexedTraces, traceDeltas, updateTraceSummary } from './trace-index.ts';

/**
 * Storage of spans. One item per span, in one partition per trace:
 * `W#<ws>#TR#<trace_id>` / `SP#<span_id>`. The key is the span's identity, so a span sent again (the SDK
 * retries) overwrites itself instead of adding a copy.
 *
 * - `doc`: the span's summary as JSON (ids, name, kind, times, status, the request-log link): what a
 *   trace's tree is built from, always small (its strings are bounded by the schema).
 * - `detail`: attributes, events, links and resource as JSON, when at most INLINE_DETAIL_BYTES; a larger
 *   detail is written to S3 first and the item keeps the pointer (`detailKey`), so a crash between the two
 *   writes leaves only an unreferenced object. Nothing is truncated. `detailBytes` is its size either way,
 *   so a reader can plan an answer without fetching it.
 *
 * Inline details stay small so that reading a whole trace stays cheap: a Query page holds 1 MB of items,
 * however few attributes are projected.
 */
export const INLINE_DETAIL_BYTES = 8 * 1024;

/** The span's summary, stored as `doc`. Times are nanoseconds since the epoch as decimal strings. */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start_ns: string;
  end_ns: string;
  status: { status_code: string; description: string | null };
  trace_state: string;
  request_log_id: number | null;
  request_log: RequestLogSummary | null;
}

/** What a span carries besides its summary, stored as `detail` (or in S3). */
export interface SpanDetail {
  attributes: Record<string, unknown>;
  events: unknown[];
  links: unknown[];
  resource: Record<string, unknown> | null;
  /** Top-level fields of the span that the API does not define, kept as sent. */
  extra?: Record<string, unknown>;
}

export interface StoredSpan {
  record: SpanRecord;
  /** `detail` as JSON, serialised once by the caller. */
  detailJson: string;
}

const SPAN_PREFIX = 'SP#';

export const tracePartition = (workspaceId: number, traceId: string) => `W#${workspaceId}#TR#${traceId}`;

export const spanKey = (workspaceId: number, traceId: string, spanId: string) => ({
  PK: tracePartition(workspaceId, traceId),
  SK: `${SPAN_PREFIX}${spanId}`,
});

/**
 * Which request log a span's `log_request` became: `W#<ws>#TR#<trace_id>` / `LOG#<span_id>`, in the
 * trace's partition but outside the `SP#` range a trace read queries.
 */
const spanLogClaimKey = (workspaceId: number, traceId: string, spanId: string) => ({
  PK: tracePartition(workspaceId, traceId),
  SK: `LOG#${spanId}`,
});

/**
 * Claims the id of the request log a span's `log_request` becomes: the first caller's `logId` wins, and
 * every caller (the same call retried, or sent twice at once) gets the winner's id, so a span makes one
 * log however often it is sent. Answers the id to write the log under.
 */
export async function claimSpanLog(
  workspaceId: number,
  traceId: string,
  spanId: string,
  logId: number,
): Promise<number> {
  const Key = spanLogClaimKey(workspaceId, traceId, spanId);
  if (await putNewItem({ ...Key, logId })) return logId;
  return (await getItem(Key))!.logId as number;
}

const detailObjectKey = (workspaceId: number, record: SpanRecord) =>
  `traces/${workspaceId}/${record.trace_id}/${record.span_id}.json`;

/** S3 requests and BatchWriteItem lanes in flight in one call. */
const S3_IN_FLIGHT = 8;
const WRITE_LANES = 4;

/** Summaries of traces updated at once for a batch (each 1 to 4 UpdateItems). */
const SUMMARIES_IN_FLIGHT = 8;
/** Keys a BatchGetItem reads. */
const GET_BATCH = 100;

/**
 * Writes spans (each key at most once per call). First each trace's summary in the trace index
 * (trace-index.ts) takes the batch's change, measured against the items the batch replaces (read,
 * consistently, before), so a span sent again is not counted again; spans of a trace without a summary
 * replace nothing counted, so only the spans of indexed traces are read. Counting before writing is what
 * lets a call that failed half-way be sent again: the summary knows the batch, and the retry writes the
 * spans without counting them twice. Then oversized details go to S3, and the items in a few
 * BatchWriteItem lanes (25 items a request). Writing a span again replaces it.
 */
export async function putSpans(workspaceId: number, spans: readonly StoredSpan[]): Promise<void> {
  if (spans.length === 0) return;
  const indexed = await indexedTraces(workspaceId, [...new Set(spans.map(({ record }) => record.trace_id))]);
  const before = await replacedSpanRecords(
    workspaceId,
    spans.filter(({ record }) => indexed.has(record.trace_id)),
  );
  const deltas = traceDeltas(
    spans.map(({ record }) => record),
    before,
  );
  await forEachLimited([...deltas], SUMMARIES_IN_FLIGHT, ([traceId, delta]) =>
    updateTraceSummary(workspaceId, traceId, delta),
  );
  const items = spans.map(({ record, detailJson }) => {
    const detailBytes = Buffer.byteLength(detailJson, 'utf8');
    const item: Record<string, unknown> = {
      ...spanKey(workspaceId, record.trace_id, record.span_id),
      doc: JSON.stringify(record),
      detailBytes,
    };
    if (detailBytes > INLINE_DETAIL_BYTES) item.detailKey = detailObjectKey(workspaceId, record);
    else item.detail = detailJson;
    return { item, detailJson };
  });
  await forEachLimited(
    items.filter(({ item }) => typeof item.detailKey === 'string'),
    S3_IN_FLIGHT,
    ({ item, detailJson }) => putObject(item.detailKey as string, detailJson),
  );
  const writes: WriteRequest[] = items.map(({ item }) => ({ PutRequest: { Item: item } }));
  const laneSize = Math.max(25, Math.ceil(writes.length / WRITE_LANES / 25) * 25);
  const lanes: WriteRequest[][] = [];
  for (let i = 0; i < writes.length; i += laneSize) lanes.push(writes.slice(i, i + laneSize));
  await Promise.all(lanes.map((lane) => batchWriteItems(lane)));
}

/** The stored summaries of the spans a batch is about to replace, read in parallel lanes. */
async function replacedSpanRecords(workspaceId: number, spans: readonly StoredSpan[]) {
  const chunks: StoredSpan[][] = [];
  for (let i = 0; i < spans.length; i += GET_BATCH) chunks.push(spans.slice(i, i + GET_BATCH));
  const found = new Map<string, SpanRecord>();
  await forEachLimited(chunks, WRITE_LANES, async (chunk) => {
    const items = await batchGetItems(
      chunk.map(({ record }) => spanKey(workspaceId, record.trace_id, record.span_id)),
      { projection: 'doc', consistent: true },
    );
    for (const item of items) {
      const record = JSON.parse(item.doc as string) as SpanRecord;
      found.set(`${record.trace_id}/${record.span_id}`, record);
    }
  });
  return found;
}

/** The stored summaries of these spans of the workspace that exist, by `<trace_id>/<span_id>`. */
export async function storedSpanRecords(
  workspaceId: number,
  spans: readonly { trace_id: string; span_id: string }[],
): Promise<Map<string, SpanRecord>> {
  if (spans.length === 0) return new Map();
  const items = await batchGetItems(
    spans.map((span) => spanKey(workspaceId, span.trace_id, span.span_id)),
    { projection: 'doc' },
  );
  const found = new Map<string, SpanRecord>();
  for (const item of items) {
    const record = JSON.parse(item.doc as string) as SpanRecord;
    found.set(`${record.trace_id}/${record.span_id}`, record);
  }
  return found;
}

/** A stored span as a trace read finds it; the detail is fetched separately, when the answer has room. */
export interface SpanItem {
  record: SpanRecord;
  detailBytes: number;
  item: Record<string, unknown>;
}

/**
 * The spans of one trace, following Query pages until `cap` spans are read. `more` says that the trace
 * holds further spans (left out: the Query returns them in span-id order, not time order).
 */
export async function querySpans(
  workspaceId: number,
  traceId: string,
  cap: number,
): Promise<{ spans: SpanItem[]; more: boolean }> {
  const spans: SpanItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': tracePartition(workspaceId, traceId), ':prefix': SPAN_PREFIX },
        // One more than still wanted: its presence answers "is there more?".
        Limit: cap - spans.length + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (spans.length === cap) return { spans, more: true };
      spans.push({
        record: JSON.parse(item.doc as string) as SpanRecord,
        detailBytes: Number(item.detailBytes ?? 0),
        item,
      });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { spans, more: false };
}

/** A span's detail, from the item or from S3. */
export async function readSpanDetail(span: SpanItem): Promise<SpanDetail> {
  const { item } = span;
  const json = typeof item.detail === 'string' ? item.detail : await getObjectText(item.detailKey as string);
  return JSON.parse(json) as SpanDetail;
}

/** The details of these spans (S3 reads a few at a time), in order. */
export async function readSpanDetails(spans: readonly SpanItem[]): Promise<SpanDetail[]> {
  const details = new Array<SpanDetail>(spans.length);
  await forEachLimited(spans, S3_IN_FLIGHT, async (span, i) => {
    details[i] = await readSpanDetail(span);
  });
  return details;
}
