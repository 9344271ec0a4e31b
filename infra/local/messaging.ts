import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobQueueDef } from '../routes.ts';

/**
 * SQS and EventBridge for the local runtime. No emulator of either exists on the registries, so this
 * serves the two AWS JSON-protocol calls the functions make (SQS SendMessage/SendMessageBatch and
 * EventBridge PutEvents) on a loopback port, and delivers in-process: queue messages to the same worker
 * handlers with the queue's retry budget and a dead-letter store, events to the service log as one JSON
 * line each. The functions' code is the code that runs in AWS; only the endpoint differs.
 */
export type WorkerHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface DeadLetter {
  queue: string;
  messageId: string;
  body: string;
  receiveCount: number;
  failedAt: string;
}

export interface LocalEvent {
  bus: string;
  source: string;
  detailType: string;
  detail: Record<string, unknown>;
}

interface Message {
  messageId: string;
  body: string;
  receiveCount: number;
  sentAt: number;
}

interface QueueState {
  def: JobQueueDef;
  ready: Message[];
  busy: boolean;
  /** Messages waiting out a retry delay (so `idle()` knows work is still coming). */
  delayed: number;
}

export interface LocalMessagingOptions {
  queues: Record<string, JobQueueDef>;
  loadWorker(file: string): Promise<WorkerHandler>;
  /** Append dead letters here as JSON lines (the data directory), besides keeping them in memory. */
  deadLetterFile?: string;
  /** Base delay before a failed message is delivered again; grows with each receive. */
  retryDelayMs?: number;
  onEvent?(event: LocalEvent): void;
}

export class LocalMessaging {
  readonly events: LocalEvent[] = [];
  readonly deadLetters: DeadLetter[] = [];
  private readonly queues = new Map<string, QueueState>();
  private server: Server | undefined;
  private endpointUrl = '';
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly options: LocalMessagingOptions) {
    for (const [name, def] of Object.entries(options.queues)) {
      this.queues.set(name, { def, ready: [], busy: false, delayed: 0 });
    }
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.endpointUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.endpointUrl;
  }

  get endpoint(): string {
    return this.endpointUrl;
  }

  queueUrl(name: string): string {
    return `${this.endpointUrl}/000000000000/${name}`;
  }

  /** Resolves once no queue has a message waiting, being processed or waiting to be retried. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return reply(res, 400, { __type: 'SerializationException', message: 'Invalid JSON' });
    }
    switch (target) {
      case 'AmazonSQS.SendMessage':
        return this.sendMessages(res, input.QueueUrl, [{ Id: '0', MessageBody: input.MessageBody }], false);
      case 'AmazonSQS.SendMessageBatch':
        return this.sendMessages(
          res,
          input.QueueUrl,
          input.Entries as { Id: string; MessageBody: unknown }[],
          true,
        );
      case 'AWSEvents.PutEvents':
        return reply(res, 200, this.putEvents(input.Entries as Record<string, string>[]));
      default:
        return reply(res, 400, {
          __type: 'UnknownOperationException',
          message: `${target} is not emulated locally`,
        });
    }
  }

  private sendMessages(
    res: ServerResponse,
    queueUrl: unknown,
    entries: { Id: string; MessageBody: unknown }[],
    batch: boolean,
  ): void {
    const name =
      String(queueUrl ?? '')
        .split('/')
        .pop() ?? '';
    const queue = this.queues.get(name);
    if (!queue) {
      reply(res, 400, { __type: 'QueueDoesNotExist', message: `No local queue ${name}` });
      return;
    }
    const successful = entries.map((entry) => {
      const body = String(entry.MessageBody);
      const message: Message = { messageId: randomUUID(), body, receiveCount: 0, sentAt: Date.now() };
      queue.ready.push(message);
      return { Id: entry.Id, MessageId: message.messageId, MD5OfMessageBody: md5(body) };
    });
    setImmediate(() => void this.pump(name));
    const first = successful[0];
    reply(
      res,
      200,
      batch
        ? { Successful: successful, Failed: [] }
        : { MessageId: first?.MessageId, MD5OfMessageBody: first?.MD5OfMessageBody },
    );
  }

  private putEvents(entries: Record<string, string>[]) {
    const results = entries.map((entry) => {
      const event: LocalEvent = {
        bus: entry.EventBusName ?? 'default',
        source: entry.Source ?? '',
        detailType: entry.DetailType ?? '',
        detail: JSON.parse(entry.Detail ?? '{}'),
      };
      this.events.push(event);
      if (this.events.length > 10_000) this.events.shift();
      this.options.onEvent?.(event);
      return { EventId: randomUUID() };
    });
    return { FailedEntryCount: 0, Entries: results };
  }

  private async pump(name: string): Promise<void> {
    const queue = this.queues.get(name);
    if (!queue || queue.busy || this.stopped) return;
    const batch = queue.ready.splice(0, queue.def.batchSize);
    if (batch.length === 0) return this.notifyIfIdle();
    queue.busy = true;
    for (const message of batch) message.receiveCount++;
    let failedIds: Set<string>;
    try {
      const worker = await this.options.loadWorker(queue.def.worker);
      const result = await worker(toSqsEvent(name, batch));
      failedIds = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch {
      failedIds = new Set(batch.map((message) => message.messageId)); // a thrown error fails the whole batch
    }
    queue.busy = false;
    for (const message of batch) {
      if (!failedIds.has(message.messageId)) continue;
      if (message.receiveCount >= queue.def.maxReceiveCount) this.deadLetter(name, message);
      else this.retryLater(name, queue, message);
    }
    setImmediate(() => void this.pump(name));
  }

  private retryLater(name: string, queue: QueueState, message: Message): void {
    queue.delayed++;
    const delay = (this.options.retryDelayMs ?? 250) * message.receiveCount;
    setTimeout(() => {
      queue.delayed--;
      queue.ready.push(message);
      void this.pump(name);
    }, delay).unref();
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
  }

  private isIdle(): boolean {
    for (const queue of this.queues.values())
      if (queue.busy || queue.ready.length || queue.delayed) return false;
    return true;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function toSqsEvent(queue: string, batch: Message[]): SQSEvent {
  return {
    Records: batch.map(
      (message): SQSRecord => ({
        messageId: message.messageId,
        receiptHandle: message.messageId,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
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

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
