import { createHash, randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import type { BusEventDetail } from './bus-message.ts';

/**
 * The durable record of every event: written before the event goes on the bus and acknowledged by
 * its consumer (the webhook fan-out), so an event whose `PutEvents` failed, or whose queue lost it, is
 * still there for the sweep to put again. While unacknowledged an event sits in a sparse index
 * (GSI1, `EVPENDING#<shard>`, ordered by creation) that the sweep reads oldest first; acknowledging
 * removes it from there. Items expire after EVENT_RETENTION_DAYS.
 *
 *   PK `W#<ws>#EV#<eventId>`  SK `EV`  (the detail as it goes on the bus, `sweeps`, `acknowledgedAt`)
 *
 * The detail is kept as JSON text: details may hold numbers a DynamoDB map cannot (a report's score
 * past 1e±125 or 38 digits, or past 2^53 for the document client). An item written as a map before is
 * read as it is.
 */
export const EVENT_RETENTION_DAYS = 30;
/** Pending events spread over this many index partitions, so no one partition takes every write. */
export const PENDING_SHARDS = 4;
const PENDING_PREFIX = 'EVPENDING#';

export const eventKey = (workspaceId: number, eventId: string) => ({
  PK: `W#${workspaceId}#EV#${eventId}`,
  SK: 'EV',
});

/**
 * A new event id: random, or derived from a key the producer gives for a change that may be reported
 * twice (a job redelivered after its event was written), so the second report is the same event.
 */
export function eventId(workspaceId: number, type: string, key?: string): string {
  if (key === undefined) return `ev_${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(`${workspaceId}\n${type}\n${key}`).digest('hex');
  return `ev_${digest.slice(0, 32)}`;
}

function toItem(detail: BusEventDetail, createdAt: number) {
  const shard = Number.parseInt(detail.event_id.slice(-2), 16) % PENDING_SHARDS || 0;
  return {
    ...eventKey(detail.workspace_id, detail.event_id),
    GSI1PK: `${PENDING_PREFIX}${shard}`,
    GSI1SK: `${new Date(createdAt).toISOString()}#${detail.event_id}`,
    detail: JSON.stringify(detail),
    sweeps: 0,
    expiresAt: Math.floor(createdAt / 1000) + EVENT_RETENTION_DAYS * 86_400,
  };
}

/**
 * Writes the events of one change in one call: a conditional put for a single event (a keyed event
 * written before is left as it is, and answered false: it is already on its way), a batch otherwise.
 * Answers the events that are new.
 */
export async function recordEvents(details: BusEventDetail[], now = Date.now()): Promise<BusEventDetail[]> {
  if (details.length === 1) {
    const [detail] = details as [BusEventDetail];
    const written = await unlessConditionFails(
      dynamo.send(
        new PutCommand({
          TableName: table(),
          Item: toItem(detail, now),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
    return written ? details : [];
  }
  await batchWriteItems(details.map((detail) => ({ PutRequest: { Item: toItem(detail, now) } })));
  return details;
}

/**
 * Marks an event as received by its consumer (the webhook fan-out), so the sweep stops putting it on
 * the bus again. Idempotent; an unknown (expired) or already acknowledged event is fine.
 */
export async function acknowledgeEvent(workspaceId: number, eventId: string): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: eventKey(workspaceId, eventId),
        UpdateExpression: 'SET acknowledgedAt = if_not_exists(acknowledgedAt, :now) REMOVE GSI1PK, GSI1SK',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    ),
  );
}

/**
 * Takes back the sweep counted for an event the bus then refused: a bus outage, however long, does not
 * bring the event closer to being abandoned. An event acknowledged or abandoned meanwhile is left as it is.
 */
export async function uncountSweep(detail: BusEventDetail): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: eventKey(detail.workspace_id, detail.event_id),
        UpdateExpression: 'ADD sweeps :minusOne',
        ConditionExpression: 'attribute_exists(GSI1PK)',
        ExpressionAttributeValues: { ':minusOne': -1 },
      }),
    ),
  );
}

export interface PendingEvent {
  detail: BusEventDetail;
  sweeps: number;
}

/** Unacknowledged events created before `before`, oldest first, at most `limit` per shard. */
export async function pendingEvents(before: Date, limit: number): Promise<PendingEvent[]> {
  const shards = await Promise.all(
    Array.from({ length: PENDING_SHARDS }, (_, shard) =>
      dynamo.send(
        new QueryCommand({
          TableName: table(),
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
          ExpressionAttributeValues: { ':pk': `${PENDING_PREFIX}${shard}`, ':before': before.toISOString() },
          Limit: limit,
        }),
      ),
    ),
  );
  return shards.flatMap((page) =>
    (page.Items ?? []).map((item) => ({
      detail: (typeof item.detail === 'string' ? JSON.parse(item.detail) : item.detail) as BusEventDetail,
      sweeps: Number(item.sweeps ?? 0),
    })),
  );
}

/**
 * Counts one more sweep of a pending event and answers what to do with it: `due` (put it on the bus
 * again); `abandoned` once it was swept `maxSweeps` times: it leaves the pending index (its consumer
 * keeps failing: the dead-letter queues and their alarms tell that story); `acknowledged` when its
 * consumer acknowledged it since the sweep read the index.
 */
export async function countSweep(
  detail: BusEventDetail,
  maxSweeps: number,
): Promise<'due' | 'abandoned' | 'acknowledged'> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: eventKey(detail.workspace_id, detail.event_id),
        UpdateExpression: 'ADD sweeps :one',
        ConditionExpression: 'attribute_exists(GSI1PK)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  if (!result) return 'acknowledged';
  if (Number(result.Attributes?.sweeps) <= maxSweeps) return 'due';
  await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: eventKey(detail.workspace_id, detail.event_id),
      UpdateExpression: 'SET abandonedAt = :now REMOVE GSI1PK, GSI1SK',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
  return 'abandoned';
}
