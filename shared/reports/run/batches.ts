import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { claimLease, heldBy } from '#shared/platform/lease.ts';
import { batchKey, runPartition } from '../keys.ts';
import { deleteRunObjects } from './objects.ts';

/**
 * A run's batches (docs/report-runs.md): one item per batch of rows, PK `W#<ws>#RPT#<id>#RUN#<n>`,
 * SK `B#<batch>`: its claim under a lease (status QUEUED|RUNNING|DONE, attempt, lease) and, once DONE,
 * its cells. Cells too big for the item live in S3 (objects.ts); the head counts DONE batches
 * (head.ts).
 */
/** A stored cell: its status, and its value and error inline, or the S3 key of `{v, e}`. */
export interface StoredCell {
  s: 'COMPLETED' | 'FAILED';
  v?: unknown;
  e?: string;
  k?: string;
  /** The request log the cell's node recorded (PROMPT_TEMPLATE, LLM_ASSERTION). */
  l?: number;
}

/** One batch item. `cells` (JSON): one object per row of the batch, column id -> stored cell. */
export interface BatchItem {
  status: 'QUEUED' | 'RUNNING' | 'DONE';
  attempt?: number;
  leaseUntil?: number;
  startedAt?: number;
  finishedAt?: number;
  cells?: string;
  completedCells?: number;
  failedCells?: number;
  SK: string;
}

/** Claims a batch (an absent item is QUEUED): the batch item as claimed, or undefined. */
export function claimBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  now: number,
  leaseMs: number,
): Promise<BatchItem | undefined> {
  return claimLease<BatchItem>(batchKey(ws, reportId, run, batch), { now, leaseMs, absentIsQueued: true });
}

export async function getBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
): Promise<BatchItem | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: batchKey(ws, reportId, run, batch), ConsistentRead: true }),
  );
  return Item as BatchItem | undefined;
}

/**
 * Writes a batch's cells and makes it DONE, conditioned on the attempt that claimed it: answers whether
 * this write did it (a stale attempt's write is refused).
 */
export async function finishBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  attempt: number,
  outcome: { cells: string; completedCells: number; failedCells: number },
  now: number,
): Promise<boolean> {
  const held = heldBy(attempt);
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: batchKey(ws, reportId, run, batch),
        UpdateExpression:
          'SET #lstatus = :done, cells = :cells, completedCells = :completed, failedCells = :failed, finishedAt = :now REMOVE leaseUntil',
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: {
          ...held.values,
          ':done': 'DONE',
          ':cells': outcome.cells,
          ':completed': outcome.completedCells,
          ':failed': outcome.failedCells,
          ':now': now,
        },
      }),
    ),
  );
  return result !== undefined;
}

/** Removes a batch item this attempt claimed for nothing (its run was replaced). */
export async function abandonBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  attempt: number,
): Promise<void> {
  const held = heldBy(attempt);
  await unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: batchKey(ws, reportId, run, batch),
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: held.values,
      }),
    ),
  );
}

/** The batch items [from, to] of a run, in order (paged past 1 MB), read consistently. */
export async function queryBatches(
  ws: number,
  reportId: number,
  run: number,
  from: number,
  to: number,
): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': runPartition(ws, reportId, run),
          ':from': batchKey(ws, reportId, run, from).SK,
          ':to': batchKey(ws, reportId, run, to).SK,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as BatchItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The batch number of a batch item's sort key. */
export const batchOfKey = (sk: string) => Number(sk.slice(2));

/**
 * Removes what a replaced run left: its batch items (one Query of keys per page, BatchWriteItem deletes)
 * and its S3 objects. Idempotent; the run that replaced it never reads them.
 */
export async function deleteRun(ws: number, reportId: number, run: number): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': runPartition(ws, reportId, run) },
        ProjectionExpression: 'PK, SK',
        ExclusiveStartKey: startKey,
      }),
    );
    const keys = (page.Items ?? []) as { PK: string; SK: string }[];
    if (keys.length) await batchWriteItems(keys.map((Key) => ({ DeleteRequest: { Key } })));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await deleteRunObjects(ws, reportId, run);
}
