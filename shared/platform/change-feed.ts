import type {
  AttributeValue,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import { loggedHandler, logger } from './logger.ts';

/**
 * The table's change feed: every write of an item kind a consumer subscribes to (a row of
 * CHANGE_CONSUMERS: request logs for the rollups, later the search lake) reaches the consumer as a
 * DynamoDB Streams record with the item's old and new images. In AWS, Lambda reads the table's stream
 * (NEW_AND_OLD_IMAGES); locally the runtime captures the table's writes and delivers the same records,
 * in order, in batches, with retries (docs/architecture.md, docs/local-development.md).
 *
 * A consumer is `changeFeedHandler(apply)`: it gets the batch's changes with plain images and the shard
 * they came from, and answers which changes failed; the batch is then retried from the first failed
 * one (Lambda's ReportBatchItemFailures), so `apply` must be idempotent per shard and sequence number.
 */
export type ItemImage = Record<string, unknown>;

export interface ItemChange {
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** Ordered within a shard: a retried change keeps its number. */
  sequence: string;
  keys: ItemImage;
  oldImage?: ItemImage;
  newImage?: ItemImage;
}

/**
 * The event Lambda passes when the event source mapping has a tumbling window: `shardId` names the
 * stream shard of the batch (a plain stream event does not), which is what a per-shard sequence mark
 * needs. The consumers keep no window state.
 */
export interface ShardStreamEvent extends DynamoDBStreamEvent {
  shardId?: string;
}

/** Shard of a batch without `shardId` (a plain stream event): the stream, as one ordered sequence. */
const streamOf = (event: DynamoDBStreamEvent) => event.Records[0]?.eventSourceARN ?? 'stream';

export function changeFeedHandler(
  apply: (changes: ItemChange[], shard: string) => Promise<{ failedSequences: readonly string[] }>,
): (event: ShardStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse> {
  return loggedHandler(async (event) => {
    const changes = event.Records.map(toChange);
    if (changes.length === 0) return { batchItemFailures: [] };
    const shard = event.shardId ?? streamOf(event);
    const { failedSequences } = await apply(changes, shard);
    if (failedSequences.length === 0) return { batchItemFailures: [] };
    // Lambda retries from the first failed record: the ones after it are retried too.
    const first = changes.find((change) => failedSequences.includes(change.sequence));
    logger.warn('Change batch partly failed; it is retried from the first failed change', {
      shard,
      failed: failedSequences.length,
      firstSequence: first?.sequence,
    });
    return { batchItemFailures: first ? [{ itemIdentifier: first.sequence }] : [] };
  });
}

function toChange(record: DynamoDBRecord): ItemChange {
  const stream = record.dynamodb ?? {};
  return {
    kind: record.eventName ?? 'MODIFY',
    sequence: stream.SequenceNumber ?? '0',
    keys: unmarshallImage(stream.Keys ?? {}),
    oldImage: stream.OldImage && unmarshallImage(stream.OldImage),
    newImage: stream.NewImage && unmarshallImage(stream.NewImage),
  };
}

/** A stream image as plain values (binary attributes as base64 strings, as the stream sends them). */
export function unmarshallImage(image: Record<string, AttributeValue>): ItemImage {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, unmarshallValue(value)]));
}

function unmarshallValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.M !== undefined) return unmarshallImage(value.M);
  if (value.L !== undefined) return value.L.map(unmarshallValue);
  if (value.SS !== undefined) return [...value.SS];
  if (value.NS !== undefined) return value.NS.map(Number);
  if (value.B !== undefined) return value.B;
  return value.BS;
}
