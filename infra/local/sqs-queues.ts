import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobQueueDef } from '../routes.ts';
import { ACCOUNT, AwsError, entriesOf, MAX_BATCH_ENTRIES } from './aws-protocol.ts';
import { lambdaContext } from './gateway.ts';

/**
 * The local SQS engine (served by messaging.ts): SendMessage(Batch) with `DelaySeconds` and
 * ChangeMessageVisibility(Batch) on the job queues, each message delivered in process to its queue's
 * worker handler with the queue's batch size, concurrency and retry budget, then to a dead-letter store;
 * a journal keeps what is queued across a stop.
 */
export type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface DeadLetter {
  queue: string;
  messageId: string;
  body: string;
  receiveCount: number;
  failedAt: string;
}

interface Message {
  messageId: string;
  body: string;
  receiveCount: number;
  sentAt: number;
  /** When the message was first delivered (SQS's ApproximateFirstReceiveTimestamp). */
  firstReceivedAt?: number;
  /** Set by ChangeMessageVisibility during a delivery: when a failed message is delivered again. */
  visibilityTimeoutSeconds?: number;
}

/** A line of the queue journal: a message (re)scheduled, or finished with. */
type JournalEntry =
  | { op: 'put'; queue: string; visibleAt: number; message: Message }
  | { op: 'done'; id: string };

interface QueueState {
  name: string;
  def: JobQueueDef;
  ready: Message[];
  /** Batches being processed now (at most the queue's `maxConcurrency`). */
  running: number;
  /** Messages waiting out a delay or a retry (so `idle()` knows work is still coming). */
  delayed: number;
}

/** The grants a worker runs with are the local runtime's business: messaging only brackets the call. */
export type InvokeWorker = <T>(queue: string, def: JobQueueDef, call: () => Promise<T>) => Promise<T>;

export interface SqsQueuesOptions {
  queues: Readonly<Record<string, JobQueueDef>>;
  loadWorker(file: string): Promise<WorkerHandler>;
  /** Append dead letters here as JSON lines (the data directory), besides keeping them in memory. */
  deadLetterFile?: string;
  /**
   * Where queued messages are journaled (the data directory), so that a stop, even a kill -9, loses
   * none: `resume()` delivers what was queued, waiting or being processed, as SQS would keep it.
   */
  journalFile?: string;
  /** Base delay before a failed message is delivered again; grows with each receive. */
  retryDelayMs?: number;
  /** Multiplies every delay (DelaySeconds, visibility timeouts, retries): tests use e.g. 0.001. */
  timeScale?: number;
  /** Wraps each worker call (the local runtime enforces the worker's grants there). */
  invokeWorker?: InvokeWorker;
}

const MAX_DELAY_SECONDS = 900;
const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

export class SqsQueues {
  private readonly options: SqsQueuesOptions;
  /** The endpoint queue URLs start with, known once the server listens. */
  private readonly endpoint: () => string;
  readonly deadLetters: DeadLetter[] = [];
  private readonly queues = new Map<string, QueueState>();
  /** Messages being processed, by the receipt handle of their current delivery. */
  private readonly inFlight = new Map<string, { queue: string; message: Message }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(options: SqsQueuesOptions, endpoint: () => string) {
    this.options = options;
    this.endpoint = endpoint;
    for (const [name, def] of Object.entries(options.queues)) {
      this.queues.set(name, { name, def, ready: [], running: 0, delayed: 0 });
    }
  }

  has(name: string): boolean {
    return this.queues.has(name);
  }

  queueUrl(name: string): string {
    return `${this.endpoint()}/${ACCOUNT}/${name}`;
  }

  /** Resolves once no queue has a message waiting, delayed, being processed or waiting to be retried. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Answers an `AmazonSQS.<operation>` call. */
  answer(operation: string, input: Record<string, unknown>): unknown {
    switch (operation) {
      case 'SendMessage': {
        const [sent] = this.sendMessages(input.QueueUrl, [{ ...input, Id: '0' }]);
        return { MessageId: sent?.MessageId, MD5OfMessageBody: sent?.MD5OfMessageBody };
      }
      case 'SendMessageBatch':
        return { Successful: this.sendMessages(input.QueueUrl, sqsBatchOf(input)), Failed: [] };
      case 'ChangeMessageVisibility':
        this.changeVisibility(input.QueueUrl, input.ReceiptHandle, input.VisibilityTimeout);
        return {};
      case 'ChangeMessageVisibilityBatch': {
        const successful: { Id: unknown }[] = [];
        const failed: { Id: unknown; Code: string; Message: string; SenderFault: boolean }[] = [];
        for (const entry of sqsBatchOf(input)) {
          try {
            this.changeVisibility(input.QueueUrl, entry.ReceiptHandle, entry.VisibilityTimeout);
            successful.push({ Id: entry.Id });
          } catch (error) {
            if (!(error instanceof AwsError)) throw error;
            failed.push({ Id: entry.Id, Code: error.type, Message: error.message, SenderFault: true });
          }
        }
        return { Successful: successful, Failed: failed };
      }
      default:
        throw new AwsError('UnknownOperationException', `AmazonSQS.${operation} is not emulated locally`);
    }
  }

  /** Puts a message on the named queue at once (an event a bus rule delivers). */
  send(name: string, body: string): void {
    this.enqueue(this.queues.get(name) as QueueState, body, 0);
  }

  private queueOf(queueUrl: unknown): QueueState {
    const name =
      String(queueUrl ?? '')
        .split('/')
        .pop() ?? '';
    const queue = this.queues.get(name);
    if (!queue) throw new AwsError('AWS.SimpleQueueService.NonExistentQueue', `No local queue ${name}`);
    return queue;
  }

  private sendMessages(queueUrl: unknown, entries: Record<string, unknown>[]) {
    const queue = this.queueOf(queueUrl);
    // All or nothing: a bad entry refuses the call before any message is sent.
    const delays = entries.map((entry) => {
      const delaySeconds = Number(entry.DelaySeconds ?? 0);
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
        throw new AwsError('InvalidParameterValue', `DelaySeconds must be 0 to ${MAX_DELAY_SECONDS}`);
      }
      return delaySeconds;
    });
    return entries.map((entry, i) => {
      const message = this.enqueue(queue, String(entry.MessageBody), (delays[i] ?? 0) * 1000);
      return { Id: entry.Id, MessageId: message.messageId, MD5OfMessageBody: md5(message.body) };
    });
  }

  /** Puts a message on a queue, visible after `delayMs` (scaled). */
  private enqueue(queue: QueueState, body: string, delayMs: number): Message {
    const message: Message = { messageId: randomUUID(), body, receiveCount: 0, sentAt: Date.now() };
    this.later(queue, message, delayMs);
    return message;
  }

  /** The message becomes visible on its queue after `delayMs` (times the time scale; 0 = at once). */
  private later(queue: QueueState, message: Message, delayMs: number): void {
    const scale = this.options.timeScale ?? 1;
    this.journal({ op: 'put', queue: queue.name, visibleAt: Date.now() + delayMs * scale, message });
    if (delayMs <= 0) {
      queue.ready.push(message);
      setImmediate(() => this.pump(queue));
      return;
    }
    queue.delayed++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      queue.delayed--;
      queue.ready.push(message);
      this.pump(queue);
    }, delayMs * scale);
    timer.unref();
    this.timers.add(timer);
  }

  private changeVisibility(queueUrl: unknown, receiptHandle: unknown, timeout: unknown): void {
    const queue = this.queueOf(queueUrl);
    const seconds = Number(timeout);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_TIMEOUT_SECONDS) {
      throw new AwsError(
        'InvalidParameterValue',
        `VisibilityTimeout must be 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS}`,
      );
    }
    const held = this.inFlight.get(String(receiptHandle ?? ''));
    if (!held || held.queue !== queue.name) {
      throw new AwsError(
        'AWS.SimpleQueueService.MessageNotInflight',
        'The message referred to is not in flight',
      );
    }
    held.message.visibilityTimeoutSeconds = seconds;
  }

  private pump(queue: QueueState): void {
    if (this.stopped) return;
    const concurrency = Math.max(1, queue.def.maxConcurrency ?? 1);
    while (queue.running < concurrency && queue.ready.length > 0) {
      const batch = queue.ready.splice(0, queue.def.batchSize);
      queue.running++;
      void this.process(queue, batch);
    }
    this.notifyIfIdle();
  }

  private async process(queue: QueueState, batch: Message[]): Promise<void> {
    const receipts = batch.map((message) => {
      message.receiveCount++;
      message.firstReceivedAt ??= Date.now();
      message.visibilityTimeoutSeconds = undefined;
      const receiptHandle = randomBytes(24).toString('base64url');
      this.inFlight.set(receiptHandle, { queue: queue.name, message });
      return receiptHandle;
    });
    let failedIds: Set<string>;
    try {
      const worker = await this.options.loadWorker(queue.def.worker);
      const event = toSqsEvent(queue.name, batch, receipts);
      const call = () => worker(event, lambdaContext(queue.def.worker, queue.def));
      const invoke = this.options.invokeWorker;
      const result = invoke ? await invoke(queue.name, queue.def, call) : await call();
      failedIds = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      // Lambda fails the whole batch when a reported failure names no message of the batch.
      const ids = new Set(batch.map((message) => message.messageId));
      if ([...failedIds].some((id) => !ids.has(id))) failedIds = ids;
    } catch {
      failedIds = new Set(batch.map((message) => message.messageId)); // a thrown error fails the whole batch
    }
    for (const receipt of receipts) this.inFlight.delete(receipt);
    queue.running--;
    for (const message of batch) {
      if (!failedIds.has(message.messageId)) {
        this.journal({ op: 'done', id: message.messageId });
        continue;
      }
      if (message.receiveCount >= queue.def.maxReceiveCount) this.deadLetter(queue.name, message);
      else this.retryLater(queue, message);
    }
    setImmediate(() => this.pump(queue));
  }

  /**
   * A failed message is delivered again once its visibility timeout has passed: the one the worker set
   * with ChangeMessageVisibility (0 = at once), else the local retry delay, growing with each receive.
   */
  private retryLater(queue: QueueState, message: Message): void {
    const delayMs =
      message.visibilityTimeoutSeconds !== undefined
        ? message.visibilityTimeoutSeconds * 1000
        : (this.options.retryDelayMs ?? 250) * message.receiveCount;
    this.later(queue, message, delayMs);
  }

  private deadLetter(queue: string, message: Message): void {
    const letter: DeadLetter = {
      queue,
      messageId: message.messageId,
      body: message.body,
      receiveCount: message.receiveCount,
      failedAt: new Date().toISOString(),
    };
    this.deadLetters.push(letter);
    if (this.options.deadLetterFile)
      appendFileSync(this.options.deadLetterFile, `${JSON.stringify(letter)}\n`);
    this.journal({ op: 'done', id: message.messageId });
  }

  private journal(entry: JournalEntry): void {
    if (this.options.journalFile) appendFileSync(this.options.journalFile, `${JSON.stringify(entry)}\n`);
  }

  /**
   * Queues again what the journal holds from an earlier run: every message not yet done (processed or
   * dead-lettered), when it was due (at once if that has passed; one being processed when the process
   * died is due again, as after a visibility timeout), with its receive count. The journal is then
   * rewritten with only those. Call once the workers can run (their settings are in the environment).
   */
  resume(): number {
    const file = this.options.journalFile;
    if (!file || !existsSync(file)) return 0;
    const live = new Map<string, Extract<JournalEntry, { op: 'put' }>>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (entry.op === 'put') live.set(entry.message.messageId, entry);
        else live.delete(entry.id);
      } catch {
        // A line cut short by the kill: the message it recorded was not acknowledged to its sender.
      }
    }
    writeFileSync(file, '');
    let resumed = 0;
    for (const { queue: name, visibleAt, message } of live.values()) {
      const queue = this.queues.get(name);
      if (!queue) continue; // a queue this version no longer has
      this.later(queue, message, Math.max(0, visibleAt - Date.now()) / (this.options.timeScale ?? 1));
      resumed++;
    }
    return resumed;
  }

  private isIdle(): boolean {
    for (const queue of this.queues.values())
      if (queue.running || queue.ready.length || queue.delayed) return false;
    return true;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** The entries of an SQS batch call, refused as SQS refuses them: none, more than 10, or repeated ids. */
function sqsBatchOf(input: Record<string, unknown>): Record<string, unknown>[] {
  const entries = entriesOf(input);
  if (entries.length === 0) {
    throw new AwsError(
      'com.amazonaws.sqs#EmptyBatchRequest',
      'The batch request does not contain any entries',
    );
  }
  if (entries.length > MAX_BATCH_ENTRIES) {
    throw new AwsError(
      'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
    );
  }
  if (new Set(entries.map((entry) => entry.Id)).size !== entries.length) {
    throw new AwsError(
      'com.amazonaws.sqs#BatchEntryIdsNotDistinct',
      'Two or more batch entries have the same Id',
    );
  }
  return entries;
}

function toSqsEvent(queue: string, batch: Message[], receipts: string[]): SQSEvent {
  return {
    Records: batch.map(
      (message, i): SQSRecord => ({
        messageId: message.messageId,
        receiptHandle: receipts[i] ?? '',
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
        },
        messageAttributes: {},
        md5OfBody: md5(message.body),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:local:000000000000:${queue}`,
        awsRegion: 'local',
      }),
    ),
  };
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
