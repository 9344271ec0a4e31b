import { randomUUID } from 'node:crypto';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '#shared/platform/batch.ts';
import { deleteObject, getObjectText, putObject } from '#shared/platform/blob-store.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { logger } from '#shared/platform/logger.ts';
import type { RequestLogRecord } from './record.ts';

/**
 * Storage of request logs. One item per log, `W#<ws>#RL#<id>` / `RL`, holding the whole record as one
 * JSON string (`doc`): JSON keeps every value exactly as sent, has no nesting-depth limit (DynamoDB maps
 * stop at 32 levels) and is cheaper to write than a deep map. A record whose JSON would push the item
 * past ITEM_DOC_LIMIT_BYTES is written to S3 first and the item keeps the pointer (`docKey`), so a
 * crash between the two writes leaves only an unreferenced object, never a dangling item.
 *
 * Indexes (all keyed by the workspace, sorted by start time then id):
 * - GSI1 `W#<ws>#RL`: every log, for time-bounded searches;
 * - GSI2 `W#<ws>#RLP#<prompt_id>`: logs of one prompt (sparse: only logs that name a prompt);
 * - GSI3 `W#<ws>#RLS#<status>`: WARNING, ERROR and RUNNING logs (sparse: SUCCESS is the bulk, read via GSI1).
 *
 * An item whose doc is in S3 also keeps `head`, the record without its payloads (RequestLogHead), so
 * that readers of the table's change feed never read S3: a rewrite deletes the object an old image
 * points at.
 *
 * Later changes (scores, metadata) rewrite the doc under optimistic concurrency: `docVersion` counts
 * rewrites (absent = 0) and each write is conditional on the version it read. Access patterns and their
 * costs: docs/request-logs.md.
 */
export const ITEM_DOC_LIMIT_BYTES = 300_000;

export const requestLogKey = (workspaceId: number, id: number) => ({
  PK: `W#${workspaceId}#RL#${id}`,
  SK: 'RL',
});

/** Sort key of the time-ordered indexes: zero-padded start time, then id for a stable order. */
export const timeSortKey = (startMs: number, id: number) =>
  `${String(startMs).padStart(15, '0')}#${String(id).padStart(16, '0')}`;

/** Latest start time a sort key can carry (15 digits). */
export const MAX_SORTABLE_MS = 999_999_999_999_999;

/** The statuses GSI3 holds; SUCCESS logs are only in GSI1. */
export const INDEXED_STATUSES = ['WARNING', 'ERROR', 'RUNNING'] as const;
export type IndexedStatus = (typeof INDEXED_STATUSES)[number];

/**
 * GSI1 (every log) and GSI2 (logs of a prompt) spread a workspace's logs over this many partitions, by
 * id: one index partition takes about 1,000 writes per second, so one workspace's traffic would otherwise
 * top out near 330 logs/s of 3 KB. Readers query every shard and merge them in time order. Raising the
 * number later is safe (readers then also cover the new shards); lowering it would hide logs.
 */
export const INDEX_SHARDS = 4;
export const SHARDS = Array.from({ length: INDEX_SHARDS }, (_, shard) => shard);

/** One time-ordered partition of a request-log index. */
export type RequestLogPartition =
  | { index: 'GSI1'; shard: number }
  | { index: 'GSI2'; promptId: number; shard: number }
  | { index: 'GSI3'; status: IndexedStatus };

function partitionValue(workspaceId: number, partition: RequestLogPartition): string {
  switch (partition.index) {
    case 'GSI1':
      return `W#${workspaceId}#RLT#${partition.shard}`;
    case 'GSI2':
      return `W#${workspaceId}#RLP#${partition.promptId}#${partition.shard}`;
    case 'GSI3':
      return `W#${workspaceId}#RLS#${partition.status}`;
  }
}

export function requestLogIndexKeys(record: RequestLogRecord): Record<string, string> {
  const ws = record.workspace_id;
  const sort = timeSortKey(record.request_start_time, record.id);
  const shard = record.id % INDEX_SHARDS;
  const keys: Record<string, string> = { GSI1PK: partitionValue(ws, { index: 'GSI1', shard }), GSI1SK: sort };
  if (record.prompt_id != null) {
    keys.GSI2PK = partitionValue(ws, { index: 'GSI2', promptId: record.prompt_id, shard });
    keys.GSI2SK = sort;
  }
  if (record.status !== 'SUCCESS') {
    keys.GSI3PK = partitionValue(ws, { index: 'GSI3', status: record.status });
    keys.GSI3SK = sort;
  }
  return keys;
}

const payloadObjectKey = (record: RequestLogRecord) =>
  `request-logs/${record.workspace_id}/${record.id}.json`;

/**
 * Every rewrite attempt gets its own object key: the pointer swap is then the only thing a reader can
 * observe, and a writer that loses the race deletes only its own object.
 */
const rewrittenObjectKey = (record: RequestLogRecord) =>
  `request-logs/${record.workspace_id}/${record.id}.${randomUUID()}.json`;

/** A record without its payloads: what the change feed's readers (rollups) need of a log. */
export type RequestLogHead = Omit<
  RequestLogRecord,
  'input' | 'output' | 'parameters' | 'prompt_input_variables' | 'extra'
>;

function headOf(record: RequestLogRecord): RequestLogHead {
  const { input: _i, output: _o, parameters: _p, prompt_input_variables: _v, extra: _e, ...head } = record;
  return head;
}

/**
 * The head of the log an item (or a change-feed image of it) holds: from its doc, or the `head` kept
 * beside an S3 pointer. An item written before heads existed is read from S3; undefined when its
 * object is gone (the image of a version since rewritten).
 */
export async function readHead(item: Record<string, unknown>): Promise<RequestLogHead | undefined> {
  if (typeof item.doc === 'string') return JSON.parse(item.doc) as RequestLogHead;
  if (typeof item.head === 'string') return JSON.parse(item.head) as RequestLogHead;
  if (typeof item.docKey !== 'string') return undefined;
  try {
    return JSON.parse(await getObjectText(item.docKey)) as RequestLogHead;
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export async function putRequestLog(record: RequestLogRecord): Promise<void> {
  const doc = JSON.stringify(record);
  let body: { doc: string } | { docKey: string; head: string } = { doc };
  if (Buffer.byteLength(doc, 'utf8') > ITEM_DOC_LIMIT_BYTES) {
    const docKey = payloadObjectKey(record);
    await putObject(docKey, doc);
    body = { docKey, head: JSON.stringify(headOf(record)) };
  }
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { ...requestLogKey(record.workspace_id, record.id), ...requestLogIndexKeys(record), ...body },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getRequestLog(workspaceId: number, id: number): Promise<RequestLogRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: requestLogKey(workspaceId, id) }),
  );
  return Item ? readDoc(Item) : undefined;
}

/**
 * The record held by an item, fetching it from S3 when the item only points at it. A rewrite deletes
 * the object it replaced, so a pointer read just before the swap can miss: then the item is read again.
 */
export async function readDoc(item: Record<string, unknown>): Promise<RequestLogRecord> {
  if (typeof item.doc === 'string') return JSON.parse(item.doc) as RequestLogRecord;
  try {
    return JSON.parse(await getObjectText(item.docKey as string)) as RequestLogRecord;
  } catch (error) {
    if ((error as { name?: string }).name !== 'NoSuchKey' || typeof item.PK !== 'string') throw error;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: table(), Key: { PK: item.PK, SK: item.SK }, ConsistentRead: true }),
    );
    if (!Item || (Item.doc === undefined && Item.docKey === item.docKey)) throw error;
    return readDoc(Item);
  }
}

/** S3 reads in flight per page of items: pointer items are small, so a page can hold thousands. */
const DOC_READ_CONCURRENCY = 16;

/** The records of a page of items, in item order. */
export async function readDocs(items: readonly Record<string, unknown>[]): Promise<RequestLogRecord[]> {
  const records = new Array<RequestLogRecord>(items.length);
  const pending: number[] = [];
  items.forEach((item, i) => {
    if (typeof item.doc === 'string') records[i] = JSON.parse(item.doc) as RequestLogRecord;
    else pending.push(i);
  });
  let next = 0;
  const worker = async () => {
    for (let i = pending[next++]; i !== undefined; i = pending[next++]) records[i] = await readDoc(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(DOC_READ_CONCURRENCY, pending.length) }, worker));
  return records;
}

/** Inclusive bounds on request_start_time, epoch ms. */
export interface TimeRange {
  from: number;
  to: number;
}

/** A place in the time order of the indexes: a log's start time and id (cursor paging reads past it). */
export interface TimePosition {
  start: number;
  id: number;
}

/** How a caller that may stop early wants an index partition read. */
export interface PartitionRead {
  /** Only logs strictly past this position in the read's order. */
  after?: TimePosition;
  /**
   * How many logs the caller expects to need: the first Query asks for that many, each next one for
   * twice as many as the last (up to DynamoDB's 1 MB page), and a page is only requested once the caller
   * asks for it. Absent: 1 MB pages, the next one requested while the caller works on the current one.
   */
  expected?: number;
}

/** Past this, a growing page asks for no Limit (DynamoDB's 1 MB page bounds it). */
const MAX_GROWING_LIMIT = 1000;

/**
 * The records of one index partition within a time range, page by page in time order (then id). By
 * default the next page is requested while the caller works on the current one; a page is at most 1 MB
 * of items.
 */
export async function* queryRequestLogs(
  workspaceId: number,
  partition: RequestLogPartition,
  range: TimeRange,
  order: 'asc' | 'desc',
  read: PartitionRead = {},
): AsyncGenerator<RequestLogRecord[]> {
  const { index } = partition;
  let from = timeSortKey(range.from, 0);
  let to = timeSortKey(range.to, Number.MAX_SAFE_INTEGER);
  const { after, expected } = read;
  if (after && order === 'desc') {
    const bound = timeSortKey(after.start, after.id - 1);
    if (bound < to) to = bound;
  } else if (after) {
    const bound = timeSortKey(after.start, after.id + 1);
    if (bound > from) from = bound;
  }
  if (from > to) return;
  let limit = expected;
  const query = (startKey: Record<string, unknown> | undefined) => {
    const pageLimit = limit !== undefined && limit <= MAX_GROWING_LIMIT ? limit : undefined;
    if (limit !== undefined) limit *= 2;
    return dynamo.send(
      new QueryCommand({
        TableName: table(),
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': `${index}PK`, '#sk': `${index}SK` },
        ExpressionAttributeValues: {
          ':pk': partitionValue(workspaceId, partition),
          ':from': from,
          ':to': to,
        },
        ScanIndexForward: order === 'asc',
        ExclusiveStartKey: startKey,
        Limit: pageLimit,
      }),
    );
  };
  const prefetch = expected === undefined;
  let next: Promise<QueryCommandOutput> | undefined = query(undefined);
  try {
    while (next) {
      const page: QueryCommandOutput = await next;
      const startKey = page.LastEvaluatedKey;
      next = startKey && prefetch ? query(startKey) : undefined;
      const records = await readDocs(page.Items ?? []);
      if (records.length > 0) yield records;
      if (startKey && !prefetch) next = query(startKey);
    }
  } finally {
    // A caller that stops early leaves a prefetch in flight: nobody awaits it, so it must not reject loudly.
    next?.catch(() => undefined);
  }
}

const BATCH_GET_LIMIT = 100;
const BATCH_GETS_IN_FLIGHT = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const idOfKey = (pk: unknown) => Number(String(pk).slice(String(pk).lastIndexOf('#') + 1));

/**
 * Items of the workspace's logs by id, in chunks of 100 (a few chunks in flight), each chunk yielded in
 * the order of `ids`. Keys are built from the workspace, so an id of another workspace is just absent.
 */
async function* itemsByIds(
  workspaceId: number,
  ids: readonly number[],
  projection?: string,
): AsyncGenerator<{ id: number; item: Record<string, unknown> }[]> {
  const chunks: number[][] = [];
  for (let i = 0; i < ids.length; i += BATCH_GET_LIMIT) chunks.push(ids.slice(i, i + BATCH_GET_LIMIT));
  const fetchChunk = async (chunk: number[]) => {
    const items = await batchGetItems(
      chunk.map((id) => requestLogKey(workspaceId, id)),
      { projection },
    );
    const byId = new Map(items.map((item) => [idOfKey(item.PK), item]));
    return chunk.flatMap((id) => {
      const item = byId.get(id);
      return item ? [{ id, item }] : [];
    });
  };
  // A queue, not an array of every chunk: a chunk already yielded must be garbage, not retained.
  const inFlight = chunks.slice(0, BATCH_GETS_IN_FLIGHT).map(fetchChunk);
  try {
    for (let i = 0; i < chunks.length; i++) {
      const found = await inFlight.shift()!;
      const ahead = chunks[i + BATCH_GETS_IN_FLIGHT];
      if (ahead) inFlight.push(fetchChunk(ahead));
      yield found;
    }
  } finally {
    for (const pending of inFlight) pending.catch(() => undefined);
  }
}

/** The workspace's logs with these ids, in chunks in the order of `ids`; unknown ids are skipped. */
export async function* requestLogsByIds(
  workspaceId: number,
  ids: readonly number[],
): AsyncGenerator<RequestLogRecord[]> {
  for await (const found of itemsByIds(workspaceId, ids)) {
    if (found.length > 0) yield await readDocs(found.map((f) => f.item));
  }
}

/**
 * Start times of the workspace's logs with these ids, read from the index sort key: sorting by time
 * needs neither the doc nor its S3 object. Unknown ids are skipped.
 */
export async function* requestLogStartTimes(
  workspaceId: number,
  ids: readonly number[],
): AsyncGenerator<{ id: number; start: number }[]> {
  for await (const found of itemsByIds(workspaceId, ids, 'PK, GSI1SK')) {
    yield found.map(({ id, item }) => ({ id, start: Number(String(item.GSI1SK).split('#')[0]) }));
  }
}

/**
 * Writers that lose the conditional write re-read and try again. Each round one of the contending writers
 * wins, so the budget covers a few dozen simultaneous updates of one log; the jittered, growing backoff
 * spreads them out.
 */
const MAX_UPDATE_ATTEMPTS = 30;

/**
 * Read-modify-write of one log under optimistic concurrency: read the item and its `docVersion`,
 * apply `change` to the record, write the new doc only if the version is still the one read, and start
 * over when another writer got there first. Index keys that do not change are left alone.
 * A doc held in S3 is written under a new object key first and the pointer swapped by the same
 * conditional write; the replaced object is deleted afterwards. A change that moves the log to other
 * index partitions (a prompt linked afterwards) rewrites those index keys in the same write. Throws 404
 * for an unknown id.
 */
export async function updateRequestLog(
  workspaceId: number,
  id: number,
  change: (record: RequestLogRecord) => RequestLogRecord,
): Promise<RequestLogRecord> {
  const key = requestLogKey(workspaceId, id);
  for (let attempt = 1; ; attempt++) {
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }),
    );
    if (!Item) throw notFound(`Request ${id} not found`);
    const version = typeof Item.docVersion === 'number' ? Item.docVersion : 0;
    const before = await readDoc(Item);
    const record = change(before);
    const doc = JSON.stringify(record);
    // A repeated call (a client retry) changes nothing: no write, no index replication.
    if (doc === Item.doc) return record;
    const docKey = Buffer.byteLength(doc, 'utf8') > ITEM_DOC_LIMIT_BYTES ? rewrittenObjectKey(record) : null;
    if (docKey) await putObject(docKey, doc);
    const index = indexKeyChanges(before, record);
    let written: unknown;
    try {
      written = await unlessConditionFails(
        dynamo.send(
          new UpdateCommand({
            TableName: table(),
            Key: key,
            UpdateExpression: [
              `SET ${[docKey ? 'docKey = :body, head = :head' : 'doc = :body', 'docVersion = :next', ...index.set].join(', ')}`,
              `REMOVE ${[...(docKey ? ['doc'] : ['docKey', 'head']), ...index.remove].join(', ')}`,
            ].join(' '),
            ConditionExpression:
              version === 0
                ? 'attribute_exists(PK) AND attribute_not_exists(docVersion)'
                : 'docVersion = :read',
            ExpressionAttributeValues: {
              ':body': docKey ?? doc,
              ...(docKey ? { ':head': JSON.stringify(headOf(record)) } : {}),
              ':next': version + 1,
              ...(version === 0 ? {} : { ':read': version }),
              ...index.values,
            },
          }),
        ),
      );
    } finally {
      // The new object of a write that did not happen is nobody's.
      if (docKey && !written) await discardObject(docKey);
    }
    if (!written) {
      if (attempt >= MAX_UPDATE_ATTEMPTS)
        throw conflict(`Request ${id} is being updated concurrently; retry`);
      await sleep(Math.random() * Math.min(250, 5 * 2 ** Math.min(attempt, 6)));
      continue;
    }
    if (typeof Item.docKey === 'string' && Item.docKey !== docKey) await discardObject(Item.docKey);
    return record;
  }
}

/** The index key attributes to set and remove when a change moves a log (e.g. to a prompt's partition). */
function indexKeyChanges(before: RequestLogRecord, after: RequestLogRecord) {
  const old = requestLogIndexKeys(before);
  const now = requestLogIndexKeys(after);
  const set: string[] = [];
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(now)) {
    if (old[name] === value) continue;
    set.push(`${name} = :${name}`);
    values[`:${name}`] = value;
  }
  const remove = Object.keys(old).filter((name) => !(name in now));
  return { set, remove, values };
}

/** Best effort: an object nothing points at is only wasted bytes, never wrong data. */
async function discardObject(key: string): Promise<void> {
  try {
    await deleteObject(key);
  } catch (error) {
    logger.warn('Could not delete a replaced request-log object', { key, error: error as Error });
  }
}
