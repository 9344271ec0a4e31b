import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '#shared/platform/batch.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { TTL_ATTRIBUTE } from '#shared/platform/table-schema.ts';
import {
  bucketStart,
  FIVE_MINUTE_RETENTION_MS,
  GRANULARITY_MS,
  type Granularity,
  type Tile,
} from './buckets.ts';
import { type LogFacts, logFacts, type RolledUpRecord } from './facts.ts';
import {
  ROLLUP_GROUPS,
  RollupContent,
  type RollupGroup,
  rollupPartition,
  rollupSortKey,
} from './rollup-item.ts';

/**
 * The rollup items in the table: reading tiles, and applying a batch of log changes exactly once.
 *
 * Item `W#<ws>#RU#<granularity>#<group>` / `<bucket start, 15 digits>`: `d` the compressed content
 * (rollup-item.ts), `v` a version for optimistic writes, `sq` the last sequence number applied from each
 * change-feed shard. A change is applied to an item only when its sequence number is above the item's
 * mark for its shard, and the item is written conditionally on the version read: a redelivered batch
 * (all or part of it) finds its changes already marked and adds nothing; batches of different shards
 * writing the same item retry on the version. Details: docs/analytics.md.
 */

/** One change of a request log, as the change feed delivers it. */
export interface LogChange {
  /** The change-feed shard it came from; sequence numbers are ordered within a shard. */
  shard: string;
  sequence: string;
  workspaceId: number;
  before?: RolledUpRecord;
  after?: RolledUpRecord;
}

const GRANULARITIES: readonly Granularity[] = ['5m', 'hour', 'day'];
const MAX_WRITE_ATTEMPTS = 20;
const WRITES_IN_FLIGHT = 8;

interface Operation {
  shard: string;
  sequence: bigint;
  facts: LogFacts;
  sign: 1 | -1;
}

interface PendingItem {
  key: { PK: string; SK: string };
  granularity: Granularity;
  group: RollupGroup;
  start: number;
  operations: Operation[];
}

export interface ApplyResult {
  /** Items written. */
  writes: number;
  /** Sequence numbers of the changes whose items could not be written (their batch must be retried). */
  failedSequences: string[];
}

/** Applies the changes to every rollup item they touch; safe to call again with any of them. */
export async function applyLogChanges(
  changes: readonly LogChange[],
  nowMs = Date.now(),
): Promise<ApplyResult> {
  const pending = new Map<string, PendingItem>();
  for (const change of changes) {
    const sequence = BigInt(change.sequence);
    const sides: [RolledUpRecord | undefined, 1 | -1][] = [
      [change.before, -1],
      [change.after, 1],
    ];
    for (const [record, sign] of sides) {
      if (!record) continue;
      const facts = logFacts(record);
      for (const granularity of GRANULARITIES) {
        const start = bucketStart(facts.startMs, granularity);
        // A 5-minute bucket past its retention would be written only for its TTL to delete it.
        if (granularity === '5m' && expiresAtMs(start) <= nowMs) continue;
        for (const group of ROLLUP_GROUPS) {
          const key = {
            PK: rollupPartition(change.workspaceId, granularity, group),
            SK: rollupSortKey(start),
          };
          const id = `${key.PK}|${key.SK}`;
          const item = pending.get(id) ?? { key, granularity, group, start, operations: [] };
          pending.set(id, item);
          item.operations.push({ shard: change.shard, sequence, facts, sign });
        }
      }
    }
  }
  const items = [...pending.values()];
  const stored = new Map(
    (
      await batchGetItems(
        items.map((item) => item.key),
        { consistent: true },
      )
    ).map((found) => [`${found.PK}|${found.SK}`, found]),
  );
  const failed: PendingItem[] = [];
  let writes = 0;
  let next = 0;
  const worker = async () => {
    for (let item = items[next++]; item; item = items[next++]) {
      try {
        if (await applyToItem(item, stored.get(`${item.key.PK}|${item.key.SK}`))) writes++;
      } catch {
        failed.push(item);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITES_IN_FLIGHT, items.length) }, worker));
  const failedSequences = [...new Set(failed.flatMap((item) => item.operations.map((op) => op.sequence)))]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);
  return { writes, failedSequences };
}

const expiresAtMs = (fiveMinuteStart: number) =>
  fiveMinuteStart + GRANULARITY_MS['5m'] + FIVE_MINUTE_RETENTION_MS;

/** Read-modify-write of one item under its version; true when it was written. */
async function applyToItem(item: PendingItem, first: Record<string, unknown> | undefined): Promise<boolean> {
  let current = first;
  for (let attempt = 1; ; attempt++) {
    const marks = { ...((current?.sq as Record<string, string> | undefined) ?? {}) };
    const fresh = item.operations.filter(
      (op) => marks[op.shard] === undefined || op.sequence > BigInt(marks[op.shard]!),
    );
    if (fresh.length === 0) return false;
    const content = RollupContent.decode(current?.d as Uint8Array | undefined);
    for (const op of fresh) {
      content.addFacts(item.group, op.facts, op.sign);
      if (marks[op.shard] === undefined || op.sequence > BigInt(marks[op.shard]!))
        marks[op.shard] = String(op.sequence);
    }
    const version = typeof current?.v === 'number' ? current.v : 0;
    const expires =
      item.granularity === '5m'
        ? {
            [TTL_ATTRIBUTE]: Math.ceil((item.start + GRANULARITY_MS['5m'] + FIVE_MINUTE_RETENTION_MS) / 1000),
          }
        : {};
    const written = await unlessConditionFails(
      dynamo.send(
        new PutCommand({
          TableName: table(),
          Item: { ...item.key, d: content.encode(), v: version + 1, sq: marks, ...expires },
          ConditionExpression: current ? 'v = :read' : 'attribute_not_exists(PK)',
          ExpressionAttributeValues: current ? { ':read': version } : undefined,
        }),
      ),
    );
    if (written) return true;
    if (attempt >= MAX_WRITE_ATTEMPTS)
      throw new Error(
        `Rollup item ${item.key.PK} ${item.key.SK} written by other batches ${attempt} times in a row`,
      );
    // Another shard's batch wrote the item since it was read: read it again and redo.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)));
    current = (await dynamo.send(new GetCommand({ TableName: table(), Key: item.key, ConsistentRead: true })))
      .Item;
  }
}

export interface TileContent {
  tile: Tile;
  content: RollupContent;
}

/**
 * The content of each tile for one group (tiles without an item are absent: nothing was logged then).
 * One Query per run of consecutive tiles of a granularity, so a tiling of days, hours and 5-minute
 * edges reads only the items it names.
 */
export async function readTiles(
  workspaceId: number,
  tiles: readonly Tile[],
  group: RollupGroup,
): Promise<{ found: TileContent[]; itemsRead: number }> {
  const runs: Tile[][] = [];
  for (const tile of tiles) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (
      run &&
      last &&
      last.granularity === tile.granularity &&
      last.start + GRANULARITY_MS[last.granularity] === tile.start
    ) {
      run.push(tile);
    } else runs.push([tile]);
  }
  const results = await Promise.all(runs.map((run) => queryRun(workspaceId, run, group)));
  const found = results.flatMap((r) => r.found);
  return { found, itemsRead: results.reduce((sum, r) => sum + r.itemsRead, 0) };
}

async function queryRun(workspaceId: number, run: Tile[], group: RollupGroup) {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const found: TileContent[] = [];
  let itemsRead = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': rollupPartition(workspaceId, first.granularity, group),
          ':from': rollupSortKey(first.start),
          ':to': rollupSortKey(last.start),
        },
        ProjectionExpression: 'SK, d',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      itemsRead++;
      found.push({
        tile: { granularity: first.granularity, start: Number(item.SK) },
        content: RollupContent.decode(item.d as Uint8Array),
      });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { found, itemsRead };
}
