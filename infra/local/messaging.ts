import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventRuleDef } from '../routes.ts';
import { AwsError, reply } from './aws-protocol.ts';
import { EventRouter, type LocalEvent } from './event-router.ts';
import { type LocalSecrets, SecretsStore } from './secrets-store.ts';
import { SqsQueues, type SqsQueuesOptions } from './sqs-queues.ts';

/**
 * SQS, EventBridge and Secrets Manager for the local runtime. No emulator of them exists on the
 * registries, so this serves the AWS JSON-protocol calls the functions make on one loopback port and
 * hands each to its part: the SQS engine (sqs-queues.ts: queues delivered in process to the same worker
 * handlers), the event router (event-router.ts: PutEvents, the bus rules) and the secrets store
 * (secrets-store.ts: GetSecretValue). The functions' code is the code that runs in AWS; only the
 * endpoint differs.
 */
export interface LocalMessagingOptions extends SqsQueuesOptions {
  /** Bus rules: events of the project source go to the rule's queue (which must be one of `queues`). */
  rules?: Readonly<Record<string, EventRuleDef>>;
  /** The bus the rules are on; events put on another bus are printed but match no rule. */
  busName?: string;
  /** Secrets GetSecretValue answers, by name: a value, or a function read at each call (a file). */
  secrets?: LocalSecrets;
  onEvent?(event: LocalEvent): void;
}

export class LocalMessaging {
  private readonly queues: SqsQueues;
  private readonly router: EventRouter;
  private readonly secrets: SecretsStore;
  private server: Server | undefined;
  private endpointUrl = '';

  constructor(options: LocalMessagingOptions) {
    this.queues = new SqsQueues(options, () => this.endpointUrl);
    for (const [rule, def] of Object.entries(options.rules ?? {})) {
      if (!this.queues.has(def.queue)) throw new Error(`Bus rule ${rule}: no job queue "${def.queue}"`);
    }
    this.router = new EventRouter({
      rules: options.rules,
      busName: options.busName,
      enqueue: (queue, body) => this.queues.send(queue, body),
      onEvent: options.onEvent,
    });
    this.secrets = new SecretsStore(options.secrets);
  }

  /** The events put on any bus (the newest 10,000). */
  get events(): LocalEvent[] {
    return this.router.events;
  }

  get deadLetters() {
    return this.queues.deadLetters;
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
    return this.queues.queueUrl(name);
  }

  /** Resolves once no queue has a message waiting, delayed, being processed or waiting to be retried. */
  idle(): Promise<void> {
    return this.queues.idle();
  }

  /** See SqsQueues.resume: delivers what the journal of an earlier run holds. */
  resume(): number {
    return this.queues.resume();
  }

  /** The next `count` PutEvents entries fail (see EventRouter.failPutEvents). */
  failPutEvents(count: number): void {
    this.router.failPutEvents(count);
  }

  async stop(): Promise<void> {
    this.queues.stop();
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
    try {
      reply(res, 200, this.answer(target, input));
    } catch (error) {
      if (error instanceof AwsError) reply(res, 400, { __type: error.type, message: error.message });
      else reply(res, 500, { __type: 'InternalFailure', message: (error as Error).message });
    }
  }

  private answer(target: string, input: Record<string, unknown>): unknown {
    const [service, operation = ''] = target.split('.');
    if (service === 'AmazonSQS') return this.queues.answer(operation, input);
    if (target === 'AWSEvents.PutEvents') return this.router.putEvents(input);
    if (target === 'secretsmanager.GetSecretValue') return this.secrets.getSecretValue(input.SecretId);
    throw new AwsError('UnknownOperationException', `${target} is not emulated locally`);
  }
}
