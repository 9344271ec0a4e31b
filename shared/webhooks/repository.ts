import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { EventType } from '#shared/events/catalogue.ts';
import { type CountedPlaces, releasePlace, reservePlace } from '#shared/platform/counted-places.ts';
import { dynamo, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { TTL_ATTRIBUTE } from '#shared/platform/table-schema.ts';
import { toIso } from '#shared/platform/time.ts';
import { type DeliveryStatus, MAX_WEBHOOKS_PER_WORKSPACE } from './validation.ts';

/**
 * Table access for webhooks and their deliveries.
 *
 * - A workspace's webhooks share one partition `W#<ws>#WH` (sort key `WH#<id>`), read whole by the
 *   fan-out (at most 20 items), with the workspace's webhook counter `COUNT` beside them: a create
 *   first takes a place with a conditional ADD (below the limit), so concurrent creates cannot pass 20.
 * - A webhook's deliveries share the partition `W#<ws>#WHD#<webhookId>` (sort key `D#<deliveryId>`,
 *   read by id); GSI1 lists them newest first, GSI2 per status (`...#<status>`). They expire 30 days
 *   after creation.
 * - A workflow run's callback is a delivery too, not tied to a webhook: `W#<ws>#WCB#<executionId>` /
 *   `D#<deliveryId>` (one per run), with its URL; no index lists them. Same attempts, same expiry.
 */
type Item = Record<string, unknown>;

export const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;

export interface WebhookRecord {
  id: number;
  workspaceId: number;
  url: string;
  /** The types it subscribes to; null: every subscribable type, those added later included. */
  eventTypes: EventType[] | null;
  description: string | null;
  isActive: boolean;
  /** The custom headers, sealed with the master key (they usually carry credentials). */
  headersSealed: string | null;
  headerNames: string[];
  disabledReason: string | null;
  secretVersion: number;
  previousSecretVersion: number | null;
  /** When the secret was last rotated (epoch ms): the previous one signs too for a while after. */
  rotatedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The signature headers of an attempt (the secret is never kept: these are safe to show). */
export const SIGNATURE_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'x-promptlayer-signature',
] as const;

/** How many attempts a delivery keeps (the newest): 7 automatic ones and a few manual retries. */
export const MAX_RECORDED_ATTEMPTS = 10;
/** How much of a receiver's answer (or of the reason none came) an attempt keeps. */
export const ATTEMPT_EXCERPT_MAX_CHARS = 2048;

/** One HTTP attempt of a delivery, as the delivery worker made it. */
export interface DeliveryAttempt {
  startedAt: number;
  latencyMs: number;
  /** null: no answer came (a timeout, a refused address, a network error). */
  statusCode: number | null;
  /** The first 2 KB of the answer, or why no answer came. */
  excerpt: string | null;
  headers: Record<(typeof SIGNATURE_HEADERS)[number], string>;
}

/** What every delivery has, whoever it goes to: its attempts and the exact body they send. */
export interface DeliveryState {
  id: string;
  workspaceId: number;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  deliveredAt: number | null;
  /** Failed on the last receive of its message, which went on to the dead-letter queue. */
  deadLettered: boolean;
  /** The exact body every attempt sends. */
  body: string;
  /** The newest attempts, oldest first (at most MAX_RECORDED_ATTEMPTS). */
  attemptLog: DeliveryAttempt[];
}

/** A delivery not yet attempted, due now, with the exact bytes every attempt will send. */
export function pendingDelivery(id: string, workspaceId: number, body: string, now: number): DeliveryState {
  return {
    id,
    workspaceId,
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: now,
    createdAt: now,
    deliveredAt: null,
    deadLettered: false,
    body,
    attemptLog: [],
  };
}

/** A delivery of one event to one webhook. */
export interface DeliveryRecord extends DeliveryState {
  webhookId: number;
  eventId: string;
  eventType: EventType;
}

/** The callback of one workflow run: the URL the run was started with, signed with the run's secret. */
export interface RunCallbackDeliveryRecord extends DeliveryState {
  executionId: number;
  url: string;
}

export type AnyDeliveryRecord = DeliveryRecord | RunCallbackDeliveryRecord;

/** Where a delivery item is: a webhook's delivery, or a run's callback. */
export type DeliveryRef = Pick<DeliveryState, 'workspaceId' | 'id'> &
  ({ webhookId: number; executionId?: undefined } | { executionId: number; webhookId?: undefined });

export const isRunCallback = (delivery: AnyDeliveryRecord): delivery is RunCallbackDeliveryRecord =>
  'executionId' in delivery && delivery.executionId !== undefined;

const webhooksPartition = (workspaceId: number) => `W#${workspaceId}#WH`;
const webhookKey = (workspaceId: number, id: number) => ({
  PK: webhooksPartition(workspaceId),
  SK: `WH#${id}`,
});
const counterKey = (workspaceId: number) => ({ PK: webhooksPartition(workspaceId), SK: 'COUNT' });
const deliveriesPartition = (workspaceId: number, webhookId: number) => `W#${workspaceId}#WHD#${webhookId}`;
const deliveryKey = (workspaceId: number, webhookId: number, deliveryId: string) => ({
  PK: deliveriesPartition(workspaceId, webhookId),
  SK: `D#${deliveryId}`,
});
const statusPartition = (workspaceId: number, webhookId: number, status: DeliveryStatus) =>
  `${deliveriesPartition(workspaceId, webhookId)}#${status}`;
const callbackKey = (workspaceId: number, executionId: number, deliveryId: string) => ({
  PK: `W#${workspaceId}#WCB#${executionId}`,
  SK: `D#${deliveryId}`,
});
/** The item key of either kind of delivery. */
const itemKey = (ref: DeliveryRef) =>
  ref.webhookId !== undefined
    ? deliveryKey(ref.workspaceId, ref.webhookId, ref.id)
    : callbackKey(ref.workspaceId, ref.executionId, ref.id);

/** Whether the webhook wants events of this type. */
export const subscribesTo = (webhook: WebhookRecord, type: EventType) =>
  webhook.eventTypes === null || webhook.eventTypes.includes(type);

function webhookFromItem(item: Item): WebhookRecord {
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    url: String(item.url),
    eventTypes: (item.eventTypes as EventType[] | null | undefined) ?? null,
    description: (item.description as string | null | undefined) ?? null,
    isActive: item.isActive === true,
    headersSealed: (item.headersSealed as string | null | undefined) ?? null,
    headerNames: (item.headerNames as string[] | undefined) ?? [],
    disabledReason: (item.disabledReason as string | null | undefined) ?? null,
    secretVersion: Number(item.secretVersion ?? 1),
    previousSecretVersion: item.previousSecretVersion == null ? null : Number(item.previousSecretVersion),
    rotatedAt: item.rotatedAt == null ? null : Number(item.rotatedAt),
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
  };
}

function deliveryStateFromItem(item: Item): DeliveryState {
  const optionalNumber = (value: unknown) => (value == null ? null : Number(value));
  return {
    id: String(item.id),
    workspaceId: Number(item.workspaceId),
    status: item.status as DeliveryStatus,
    attempts: Number(item.attempts ?? 0),
    lastStatusCode: optionalNumber(item.lastStatusCode),
    lastError: (item.lastError as string | null | undefined) ?? null,
    nextAttemptAt: optionalNumber(item.nextAttemptAt),
    createdAt: Number(item.createdAt),
    deliveredAt: optionalNumber(item.deliveredAt),
    deadLettered: item.deadLettered === true,
    body: String(item.body),
    attemptLog: (item.attemptLog as DeliveryAttempt[] | undefined) ?? [],
  };
}

function deliveryFromItem(item: Item): DeliveryRecord {
  return {
    ...deliveryStateFromItem(item),
    webhookId: Number(item.webhookId),
    eventId: String(item.eventId),
    eventType: item.eventType as EventType,
  };
}

/** Either kind: a run callback's item has an `executionId`. */
function anyDeliveryFromItem(item: Item): AnyDeliveryRecord {
  if (item.executionId == null) return deliveryFromItem(item);
  return { ...deliveryStateFromItem(item), executionId: Number(item.executionId), url: String(item.url) };
}

// ---- webhooks ----

const webhookPlaces = (workspaceId: number): CountedPlaces => ({
  key: counterKey(workspaceId),
  attribute: 'webhookCount',
  max: MAX_WEBHOOKS_PER_WORKSPACE,
});

/** Takes one of the workspace's webhook places; false when all are taken. */
export const reserveWebhookPlace = (workspaceId: number) => reservePlace(webhookPlaces(workspaceId));

export const releaseWebhookPlace = (workspaceId: number) => releasePlace(webhookPlaces(workspaceId));

export async function putWebhook(record: WebhookRecord): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { ...webhookKey(record.workspaceId, record.id), ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getWebhook(workspaceId: number, id: number): Promise<WebhookRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: webhookKey(workspaceId, id), ConsistentRead: true }),
  );
  return Item ? webhookFromItem(Item) : undefined;
}

/** Every webhook of the workspace, oldest first (one Query of a partition of at most 21 items). */
export async function listWebhooks(workspaceId: number): Promise<WebhookRecord[]> {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': webhooksPartition(workspaceId), ':prefix': 'WH#' },
    }),
  );
  return (Items ?? []).map(webhookFromItem).sort((a, b) => a.id - b.id);
}

export type WebhookChanges = Partial<
  Pick<
    WebhookRecord,
    'url' | 'eventTypes' | 'description' | 'isActive' | 'headersSealed' | 'headerNames' | 'disabledReason'
  >
>;

/** Sets the given fields (and `updatedAt`); undefined when the webhook does not exist. */
export async function updateWebhook(
  workspaceId: number,
  id: number,
  changes: WebhookChanges,
  now = Date.now(),
): Promise<WebhookRecord | undefined> {
  const fields = Object.entries({ ...changes, updatedAt: now }).filter(([, value]) => value !== undefined);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  fields.forEach(([name, value], index) => {
    names[`#f${index}`] = name;
    values[`:v${index}`] = value;
  });
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKey(workspaceId, id),
        UpdateExpression: `SET ${fields.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes ? webhookFromItem(result.Attributes) : undefined;
}

/** Bumps the secret version, keeping the one it replaces as the previous; undefined when absent. */
export async function rotateWebhookSecret(
  workspaceId: number,
  id: number,
  now = Date.now(),
): Promise<WebhookRecord | undefined> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKey(workspaceId, id),
        UpdateExpression:
          'SET previousSecretVersion = secretVersion, secretVersion = secretVersion + :one, rotatedAt = :now, updatedAt = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes ? webhookFromItem(result.Attributes) : undefined;
}

/** Deletes the webhook and frees its place; false when it did not exist. */
export async function deleteWebhook(workspaceId: number, id: number): Promise<boolean> {
  const deleted = await unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: webhookKey(workspaceId, id),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    ),
  );
  if (!deleted) return false;
  await releaseWebhookPlace(workspaceId);
  return true;
}

// ---- deliveries ----

function deliveryIndexKeys(record: Pick<DeliveryRecord, 'workspaceId' | 'webhookId' | 'id' | 'createdAt'>) {
  const order = `${toIso(record.createdAt)}#${record.id}`;
  return {
    GSI1PK: deliveriesPartition(record.workspaceId, record.webhookId),
    GSI1SK: order,
    GSI2SK: order,
  };
}

/** A webhook's deliveries are listed (GSI1, GSI2 per status); a run's callback is read by key only. */
function indexKeys(record: AnyDeliveryRecord) {
  if (isRunCallback(record)) return {};
  return {
    ...deliveryIndexKeys(record),
    GSI2PK: statusPartition(record.workspaceId, record.webhookId, record.status),
  };
}

/** Creates the delivery unless one of that id exists; the existing one is returned then. */
export async function createDelivery<T extends AnyDeliveryRecord>(
  record: T,
): Promise<{ created: true } | { created: false; existing: T | undefined }> {
  const created = await unlessConditionFails(
    dynamo.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...itemKey(record),
          ...indexKeys(record),
          ...record,
          [TTL_ATTRIBUTE]: Math.floor(record.createdAt / 1000) + DELIVERY_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
  if (created) return { created: true };
  return { created: false, existing: (await getDeliveryAt(record)) as T | undefined };
}

/** Either kind of delivery, by its reference. */
export async function getDeliveryAt(ref: DeliveryRef): Promise<AnyDeliveryRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: itemKey(ref), ConsistentRead: true }),
  );
  return Item ? anyDeliveryFromItem(Item) : undefined;
}

export async function getDelivery(
  workspaceId: number,
  webhookId: number,
  deliveryId: string,
): Promise<DeliveryRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: table(),
      Key: deliveryKey(workspaceId, webhookId, deliveryId),
      ConsistentRead: true,
    }),
  );
  return Item ? deliveryFromItem(Item) : undefined;
}

/** `claimDeliveryAt` for a webhook's delivery. */
export async function claimDelivery(
  workspaceId: number,
  webhookId: number,
  deliveryId: string,
  leaseUntil: number,
  now = Date.now(),
): Promise<DeliveryRecord | undefined> {
  return (await claimDeliveryAt({ workspaceId, webhookId, id: deliveryId }, leaseUntil, now)) as
    | DeliveryRecord
    | undefined;
}

/**
 * Claims a pending delivery for one attempt (until `leaseUntil`), so two messages for one delivery
 * never post it twice at once; undefined when it is not pending or another attempt holds it.
 */
export async function claimDeliveryAt(
  ref: DeliveryRef,
  leaseUntil: number,
  now = Date.now(),
): Promise<AnyDeliveryRecord | undefined> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: itemKey(ref),
        UpdateExpression: 'SET leaseUntil = :until',
        ConditionExpression:
          'attribute_exists(PK) AND #status = :pending AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':until': leaseUntil, ':pending': 'pending', ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes ? anyDeliveryFromItem(result.Attributes) : undefined;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  /** Whether an HTTP attempt was made (it counts in `attempts`). */
  attempted: boolean;
  lastStatusCode?: number | null;
  lastError?: string | null;
  nextAttemptAt?: number | null;
  deliveredAt?: number | null;
  /** Its message goes on to the dead-letter queue (a manual retry clears it). */
  deadLettered?: boolean;
  /** The HTTP attempt made, kept in the delivery's attempt log. */
  attempt?: DeliveryAttempt;
}

/**
 * Records what an attempt (or the decision not to make one) came to, releasing the claim. An
 * `attempt` joins the log of the claimed `record` (the claim makes this the only writer of it), the
 * oldest dropped beyond MAX_RECORDED_ATTEMPTS.
 */
export async function recordDeliveryOutcome(
  record: DeliveryRef & { attemptLog?: DeliveryAttempt[] },
  outcome: DeliveryOutcome,
  /** Only a delivery still pending changes (not one another attempt finished meanwhile). */
  onlyIfPending = false,
): Promise<void> {
  const sets = ['#status = :status'];
  const values: Record<string, unknown> = { ':status': outcome.status };
  if (record.webhookId !== undefined) {
    sets.push('GSI2PK = :gsi2');
    values[':gsi2'] = statusPartition(record.workspaceId, record.webhookId, outcome.status);
  }
  if (outcome.attempted) {
    sets.push('attempts = if_not_exists(attempts, :zero) + :one');
    values[':zero'] = 0;
    values[':one'] = 1;
  }
  if (outcome.attempt) {
    sets.push('attemptLog = :attemptLog');
    values[':attemptLog'] = [...(record.attemptLog ?? []), outcome.attempt].slice(-MAX_RECORDED_ATTEMPTS);
  }
  for (const field of [
    'lastStatusCode',
    'lastError',
    'nextAttemptAt',
    'deliveredAt',
    'deadLettered',
  ] as const) {
    if (outcome[field] !== undefined) {
      sets.push(`${field} = :${field}`);
      values[`:${field}`] = outcome[field];
    }
  }
  await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: itemKey(record),
      UpdateExpression: `SET ${sets.join(', ')} REMOVE leaseUntil`,
      ConditionExpression: onlyIfPending
        ? 'attribute_exists(PK) AND #status = :pending'
        : 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: onlyIfPending ? { ...values, ':pending': 'pending' } : values,
    }),
  );
}

/** Makes a delivery pending again for a manual retry; undefined when there is none of that id. */
export async function resetDeliveryForRetry(
  workspaceId: number,
  webhookId: number,
  deliveryId: string,
  now = Date.now(),
): Promise<DeliveryRecord | undefined> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(workspaceId, webhookId, deliveryId),
        UpdateExpression:
          'SET #status = :pending, GSI2PK = :gsi2, nextAttemptAt = :now REMOVE leaseUntil, deadLettered',
        // Not while an attempt holds it: a second message would post it twice at once.
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':gsi2': statusPartition(workspaceId, webhookId, 'pending'),
          ':now': now,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return result?.Attributes ? deliveryFromItem(result.Attributes) : undefined;
}

/**
 * One page of a webhook's deliveries, newest first, optionally of one status: a COUNT query of the
 * index partition for the total, then the items up to the page's end (a page deep in the list reads
 * the ones before it too; deliveries expire after 30 days, which bounds that).
 */
export async function queryDeliveries(
  workspaceId: number,
  webhookId: number,
  options: { status?: DeliveryStatus; page: number; perPage: number },
): Promise<{ items: DeliveryRecord[]; total: number }> {
  const [indexName, partition] = options.status
    ? ['GSI2', statusPartition(workspaceId, webhookId, options.status)]
    : ['GSI1', deliveriesPartition(workspaceId, webhookId)];
  const base = {
    TableName: table(),
    IndexName: indexName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': `${indexName}PK` },
    ExpressionAttributeValues: { ':pk': partition },
  };
  let total = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({ ...base, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    total += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);

  const skip = (options.page - 1) * options.perPage;
  const items: Item[] = [];
  if (skip < total) {
    do {
      const page: QueryCommandOutput = await dynamo.send(
        new QueryCommand({
          ...base,
          ScanIndexForward: false,
          Limit: skip + options.perPage - items.length,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && items.length < skip + options.perPage);
  }
  return { items: items.slice(skip, skip + options.perPage).map(deliveryFromItem), total };
}
