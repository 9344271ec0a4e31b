import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type AttributeValue, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { ShardStreamEvent } from '#shared/platform/change-feed.ts';
import { useDocumentClientMiddleware } from '#shared/platform/dynamo.ts';
import type { ChangeConsumerDef } from '../routes.ts';
import { lambdaContext } from './gateway.ts';

/**
 * The table's change feed for the local runtime: dynalite has no Streams API, so this captures the
 * table's writes where every function sends them, the process's one document client (a middleware added
 * through `useDocumentClientMiddleware`), and delivers DynamoDB Streams records to the same consumer
 * handlers, as Lambda's event source mapping would:
 * - a write (Put, Update, Delete, BatchWrite) of an item whose sort key a consumer subscribes to is
 *   serialised per key: the item is read before, written, read after, and a record with both images and
 *   the next sequence number is queued (nothing when the write failed or changed nothing);
 * - each consumer drains its records in order, one batch at a time (at most `batchSize`, after
 *   `batchingWindowSeconds`), as one shard (`shardId` on the event, as with a tumbling window);
 * - a batch that throws is split in two when `bisectOnError` and retried, one that reports failed items
 *   is retried from the first of them, up to `maxRetries`; then its records are dead letters (logged and
 *   kept in `deadLetters`, the on-failure destination in AWS) and the drain goes on.
 * Records live in memory: a process killed before they are delivered loses them (AWS keeps a stream's
 * records 24 hours).
 */
export type ChangeHandler = (
  event: ShardStreamEvent,
  context: Context,
) => Promise<DynamoDBBatchResponse | undefined>;

export interface LocalChangeFeedOptions {
  consumers: Readonly<Record<string, ChangeConsumerDef>>;
  tableName: string;
  dynamodbEndpoint: string;
  loadHandler(file: string): Promise<ChangeHandler>;
  /** Wraps each consumer call (the local runtime enforces the consumer's grants there). */
  invoke<T>(name: string, def: ChangeConsumerDef, call: () => Promise<T>): Promise<T>;
  /** Base delay before a failed batch is retried; doubles with each retry. */
  retryDelayMs?: number;
  /** Multiplies the batching window and the retry delays (tests use e.g. 0.001). */
  timeScale?: number;
  onError?(consumer: string, error: unknown): void;
}

export interface ChangeDeadLetter {
  consumer: string;
  sequence: string;
  keys: Record<string, unknown>;
  failedAt: string;
}

type Image = Record<string, AttributeValue>;

interface ConsumerState {
  name: string;
  def: ChangeConsumerDef;
  queue: DynamoDBRecord[];
  draining: boolean;
  timer: NodeJS.Timeout | undefined;
}

const consumerCalls = new AsyncLocalStorage<string>();
/**
 * True inside a change consumer's invocation. In AWS a consumer is another Lambda; locally it shares the
 * process's document client, so counters of a function's calls (bench, tests) leave these out.
 */
export const inChangeConsumer = () => consumerCalls.getStore() !== undefined;

const WRITE_COMMANDS = /^(Put|Update|Delete)(Item)?Command$/;
const BATCH_WRITE_COMMAND = /^BatchWrite(Item)?Command$/;
/** The local stream's one shard. */
export const LOCAL_SHARD_ID = 'shardId-local-00000001';

export class LocalChangeFeed {
  private readonly options: LocalChangeFeedOptions;
  readonly deadLetters: ChangeDeadLetter[] = [];
  private readonly consumers: ConsumerState[];
  private readonly reader: DynamoDBClient;
  private readonly keyLocks = new Map<string, Promise<unknown>>();
  private sequence = 0n;
  private removeMiddleware: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  private inCapture = 0;
  private stopped = false;
  private readonly streamArn: string;

  constructor(options: LocalChangeFeedOptions) {
    this.options = options;
    this.consumers = Object.entries(options.consumers).map(([name, def]) => ({
      name,
      def,
      queue: [],
      draining: false,
      timer: undefined,
    }));
    // Images are read with a client of its own, so the capture's reads never count as the function's calls.
    this.reader = new DynamoDBClient({ endpoint: options.dynamodbEndpoint });
    this.streamArn = `arn:aws:dynamodb:${process.env.AWS_REGION ?? 'us-east-1'}:000000000000:table/${options.tableName}/stream/local`;
  }

  start(): void {
    if (this.consumers.length === 0) return;
    this.removeMiddleware = useDocumentClientMiddleware(
      `localChangeFeed-${randomUUID()}`,
      (next, context) => (args) => {
        const keys = this.capturedKeys(
          String(context.commandName ?? ''),
          args.input as Record<string, unknown>,
        );
        return keys.length === 0 ? next(args) : this.capture(keys, () => next(args));
      },
    );
  }

  /**
   * Resolves once every captured change has been delivered (or dead-lettered). Batches waiting out
   * their batching window are delivered now: the window is a longest wait, not a promise of one.
   */
  idle(): Promise<void> {
    for (const consumer of this.consumers) {
      if (!consumer.timer) continue;
      clearTimeout(consumer.timer);
      consumer.timer = undefined;
      void this.drain(consumer);
    }
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.removeMiddleware?.();
    for (const consumer of this.consumers) clearTimeout(consumer.timer);
    this.reader.destroy();
    this.notifyIdle(true);
  }

  /** The keys of a write command that some consumer subscribes to. */
  private capturedKeys(commandName: string, input: Record<string, unknown>): Record<string, string>[] {
    const keys: Record<string, unknown>[] = [];
    if (WRITE_COMMANDS.test(commandName)) {
      if (input.TableName !== this.options.tableName) return [];
      keys.push((input.Key ?? input.Item) as Record<string, unknown>);
    } else if (BATCH_WRITE_COMMAND.test(commandName)) {
      const requests = (input.RequestItems as Record<string, Record<string, Record<string, unknown>>[]>)?.[
        this.options.tableName
      ];
      for (const request of requests ?? [])
        keys.push((request.PutRequest?.Item ?? request.DeleteRequest?.Key) as Record<string, unknown>);
    }
    return keys
      .map((key) => ({ PK: plainString(key?.PK), SK: plainString(key?.SK) }))
      .filter((key): key is { PK: string; SK: string } => key.PK !== undefined && key.SK !== undefined)
      .filter((key) => this.consumers.some((c) => c.def.sortKeys.includes(key.SK)));
  }

  /** Runs the write between reads of the items' images, one writer per key at a time, and queues records. */
  private async capture<T>(keys: Record<string, string>[], write: () => Promise<T>): Promise<T> {
    const ids = [...new Set(keys.map((key) => `${key.PK}\u0000${key.SK}`))].sort();
    this.inCapture++;
    const release = await this.lock(ids);
    try {
      const before = await Promise.all(ids.map((id) => this.image(id)));
      const result = await write();
      const after = await Promise.all(ids.map((id) => this.image(id)));
      ids.forEach((id, i) => {
        this.record(id, before[i], after[i]);
      });
      return result;
    } finally {
      release();
      this.inCapture--;
      this.notifyIdle();
    }
  }

  private async lock(ids: string[]): Promise<() => void> {
    const previous = ids.map((id) => this.keyLocks.get(id) ?? Promise.resolve());
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const id of ids) this.keyLocks.set(id, held);
    await Promise.all(previous.map((p) => p.catch(() => undefined)));
    return () => {
      for (const id of ids) if (this.keyLocks.get(id) === held) this.keyLocks.delete(id);
      release();
    };
  }

  private async image(id: string): Promise<Image | undefined> {
    const [PK, SK] = id.split('\u0000') as [string, string];
    const { Item } = await this.reader.send(
      new GetItemCommand({
        TableName: this.options.tableName,
        Key: { PK: { S: PK }, SK: { S: SK } },
        ConsistentRead: true,
      }),
    );
    return Item && (streamImage(Item) as Image);
  }

  private record(id: string, before: Image | undefined, after: Image | undefined): void {
    if (!before && !after) return;
    if (before && after && JSON.stringify(before) === JSON.stringify(after)) return;
    const [PK, SK] = id.split('\u0000') as [string, string];
    this.sequence += 1n;
    const record: DynamoDBRecord = {
      eventID: randomUUID().replace(/-/g, ''),
      eventName: !before ? 'INSERT' : !after ? 'REMOVE' : 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: process.env.AWS_REGION ?? 'us-east-1',
      eventSourceARN: this.streamArn,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: { PK: { S: PK }, SK: { S: SK } },
        ...(before ? { OldImage: before as never } : {}),
        ...(after ? { NewImage: after as never } : {}),
        // AWS's sequence numbers are decimal strings; these are padded so they also sort as text.
        SequenceNumber: this.sequence.toString().padStart(21, '0'),
        SizeBytes: JSON.stringify([before, after]).length,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
    for (const consumer of this.consumers) {
      if (!consumer.def.sortKeys.includes(SK)) continue;
      consumer.queue.push(record);
      this.schedule(consumer);
    }
  }

  private schedule(consumer: ConsumerState): void {
    if (consumer.draining || consumer.timer || this.stopped) return;
    const full = consumer.queue.length >= consumer.def.batchSize;
    const wait = full ? 0 : consumer.def.batchingWindowSeconds * 1000 * (this.options.timeScale ?? 1);
    consumer.timer = setTimeout(() => {
      consumer.timer = undefined;
      void this.drain(consumer);
    }, wait);
    consumer.timer.unref();
  }

  private async drain(consumer: ConsumerState): Promise<void> {
    consumer.draining = true;
    try {
      while (consumer.queue.length > 0 && !this.stopped) {
        const batch = consumer.queue.slice(0, consumer.def.batchSize);
        await this.deliver(consumer, batch, 0);
        consumer.queue.splice(0, batch.length);
      }
    } finally {
      consumer.draining = false;
      this.notifyIdle();
    }
  }

  /** Delivers a batch until it succeeds or its retries run out; resolves when it is done with. */
  private async deliver(consumer: ConsumerState, batch: DynamoDBRecord[], retries: number): Promise<void> {
    const { def, name } = consumer;
    let failedFrom: number;
    try {
      const handler = await this.options.loadHandler(def.handler);
      const event: ShardStreamEvent = { Records: batch, shardId: LOCAL_SHARD_ID };
      const answer = await consumerCalls.run(name, () =>
        this.options.invoke(name, def, () => handler(event, lambdaContext(def.handler, def))),
      );
      const first = answer?.batchItemFailures?.[0]?.itemIdentifier;
      if (first === undefined) return;
      failedFrom = Math.max(
        0,
        batch.findIndex((r) => r.dynamodb?.SequenceNumber === first),
      );
    } catch (error) {
      this.options.onError?.(name, error);
      failedFrom = -1;
    }
    if (this.stopped) return;
    if (retries >= def.maxRetries) {
      const failed = failedFrom < 0 ? batch : batch.slice(failedFrom);
      for (const record of failed) {
        this.deadLetters.push({
          consumer: name,
          sequence: record.dynamodb?.SequenceNumber ?? '',
          keys: record.dynamodb?.Keys ?? {},
          failedAt: new Date().toISOString(),
        });
      }
      console.error(
        `Change consumer ${name}: ${failed.length} change(s) failed ${retries + 1} times: dead letters`,
      );
      return;
    }
    await new Promise((resolve) =>
      setTimeout(
        resolve,
        (this.options.retryDelayMs ?? 1000) * 2 ** retries * (this.options.timeScale ?? 1),
      ).unref(),
    );
    if (failedFrom >= 0) return this.deliver(consumer, batch.slice(failedFrom), retries + 1);
    if (def.bisectOnError && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await this.deliver(consumer, batch.slice(0, half), retries + 1);
      return this.deliver(consumer, batch.slice(half), retries + 1);
    }
    return this.deliver(consumer, batch, retries + 1);
  }

  private isIdle(): boolean {
    return (
      this.inCapture === 0 && this.consumers.every((c) => c.queue.length === 0 && !c.draining && !c.timer)
    );
  }

  private notifyIdle(force = false): void {
    if (!force && !this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function plainString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const s = (value as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

/** An item as a stream record carries it: binary values base64-encoded, as in Lambda's event. */
function streamImage(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(streamImage);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, streamImage(v)]));
  }
  return value;
}
