import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalMessaging, type LocalMessagingOptions } from '#infra/local/messaging.ts';
import type { WorkerHandler } from '#infra/local/sqs-queues.ts';
import type { JobQueueDef } from '#infra/routes.ts';
import { parseBusMessage } from '#shared/events/bus-message.ts';
import { EVENT_SOURCE } from '#shared/platform/events.ts';

/**
 * The in-process SQS, EventBridge and Secrets Manager of the local runtime, through the real SDK
 * clients: bus rules to queues, a failing bus, delays and visibility timeouts, per-queue concurrency.
 */
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';

const queueDef = (overrides: Partial<JobQueueDef> = {}): JobQueueDef => ({
  worker: 'worker',
  batchSize: 1,
  maxReceiveCount: 3,
  timeoutSeconds: 30,
  memoryMb: 256,
  table: 'read',
  ...overrides,
});

const started: LocalMessaging[] = [];
afterEach(async () => {
  for (const messaging of started.splice(0)) await messaging.stop();
});

/** A messaging server whose queues all feed `worker`. */
async function startMessaging(
  worker: WorkerHandler,
  options: Partial<LocalMessagingOptions> = {},
): Promise<{ messaging: LocalMessaging; sqs: SQSClient; events: EventBridgeClient }> {
  const messaging = new LocalMessaging({
    queues: { jobs: queueDef() },
    loadWorker: async () => worker,
    retryDelayMs: 20,
    busName: 'project-bus',
    ...options,
  });
  started.push(messaging);
  const endpoint = await messaging.start();
  return {
    messaging,
    sqs: new SQSClient({ endpoint }),
    events: new EventBridgeClient({ endpoint }),
  };
}

/** A worker that keeps every record it receives (by queue) and lets `decide` fail some. */
function recordingWorker(decide: (record: SQSRecord) => Promise<boolean> | boolean = () => true) {
  const received: SQSRecord[] = [];
  const worker = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      received.push(record);
      if (!(await decide(record))) batchItemFailures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures };
  };
  return { worker, received };
}

const envelope = (eventType: string, workspaceId = 7) => ({
  event_type: eventType,
  details: { prompt_id: 1 },
  user_id: null,
  user_name: null,
  user_email: null,
  workspace_id: workspaceId,
  timestamp: '2026-01-01T00:00:00.000Z',
  event_id: `evt-${eventType}`,
});

const putEntry = (detailType: string, overrides: Record<string, string> = {}) => ({
  EventBusName: 'project-bus',
  Source: EVENT_SOURCE,
  DetailType: detailType,
  Detail: JSON.stringify(envelope(detailType)),
  ...overrides,
});

describe('bus rules', () => {
  it("delivers a project event to each matching rule's queue as the EventBridge event a rule target gets", async () => {
    const hooks = recordingWorker();
    const all = recordingWorker();
    const printed: unknown[] = [];
    const { messaging, events } = await startMessaging(hooks.worker, {
      queues: { hooks: queueDef({ worker: 'hooks' }), all: queueDef({ worker: 'all' }) },
      loadWorker: async (file) => (file === 'hooks' ? hooks.worker : all.worker),
      rules: {
        versions: {
          queue: 'hooks',
          eventTypes: ['prompt_template_version_created'],
          description: 'one type',
        },
        everything: { queue: 'all', description: 'all types' },
      },
      onEvent: (event) => printed.push(event),
    });

    const answer = await events.send(
      new PutEventsCommand({
        Entries: [
          putEntry('prompt_template_version_created'),
          putEntry('dataset_version_created_by_file'),
          putEntry('prompt_template_version_created', { Source: 'someone-else' }),
          putEntry('prompt_template_version_created', { EventBusName: 'default' }),
        ],
      }),
    );
    await messaging.idle();

    expect(answer.FailedEntryCount).toBe(0);
    expect(hooks.received.map((record) => parseBusMessage(record.body).event_type)).toEqual([
      'prompt_template_version_created',
    ]);
    expect(all.received.map((record) => parseBusMessage(record.body).event_type)).toEqual([
      'prompt_template_version_created',
      'dataset_version_created_by_file',
    ]);
    const body = JSON.parse(hooks.received[0]?.body ?? '{}');
    expect(body).toEqual({
      version: '0',
      id: answer.Entries?.[0]?.EventId,
      'detail-type': 'prompt_template_version_created',
      source: EVENT_SOURCE,
      account: '000000000000',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: process.env.AWS_REGION,
      resources: [],
      detail: envelope('prompt_template_version_created'),
    });
    expect(parseBusMessage(hooks.received[0]?.body ?? '')).toEqual(
      envelope('prompt_template_version_created'),
    );
    // Every event is still printed and kept for /__local/events, matched or not.
    expect(printed).toHaveLength(4);
    expect(messaging.events.map((event) => event.detailType)).toHaveLength(4);
  });

  it('fails the next entries while a bus failure is injected: they are neither printed nor delivered', async () => {
    const { worker, received } = recordingWorker();
    const { messaging, events } = await startMessaging(worker, {
      rules: { all: { queue: 'jobs', description: 'all' } },
    });
    messaging.failPutEvents(2);

    const first = await events.send(
      new PutEventsCommand({
        Entries: [
          putEntry('dataset_version_created_by_file'),
          putEntry('dataset_version_created_by_file_failed'),
        ],
      }),
    );
    const second = await events.send(
      new PutEventsCommand({
        Entries: [
          putEntry('dataset_version_created_by_file'),
          putEntry('dataset_version_created_by_file_failed'),
        ],
      }),
    );
    await messaging.idle();

    expect(first.FailedEntryCount).toBe(2);
    expect(first.Entries).toEqual([
      expect.objectContaining({ ErrorCode: 'InternalFailure' }),
      expect.objectContaining({ ErrorCode: 'InternalFailure' }),
    ]);
    expect(second.FailedEntryCount).toBe(0);
    expect(messaging.events).toHaveLength(2);
    expect(received).toHaveLength(2);
  });

  it('refuses a rule whose queue does not exist', () => {
    expect(
      () =>
        new LocalMessaging({
          queues: {},
          loadWorker: async () => recordingWorker().worker,
          rules: { lost: { queue: 'nowhere', description: 'x' } },
        }),
    ).toThrow(/nowhere/);
  });
});

describe('delays', () => {
  it('delivers a message sent with DelaySeconds after those sent without, scaled by timeScale', async () => {
    const { worker, received } = recordingWorker();
    const { messaging, sqs } = await startMessaging(worker, { timeScale: 0.001 });
    const QueueUrl = messaging.queueUrl('jobs');

    // Scaled to 500 and 900 ms: the batch must be sent before `late` is due, which a loaded machine did
    // not always manage within the 60 ms of a 60 s delay (SQS allows at most 900 s).
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'late', DelaySeconds: 500 }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'later', DelaySeconds: 900 },
          { Id: 'b', MessageBody: 'now' },
        ],
      }),
    );
    await messaging.idle();

    expect(received.map((record) => record.body)).toEqual(['now', 'late', 'later']);
  });

  it('delivers a failed message again after the visibility timeout its worker set (0 = at once)', async () => {
    const handles: string[] = [];
    const { worker, received } = recordingWorker(async (record) => {
      handles.push(record.receiptHandle);
      const receiveCount = Number(record.attributes.ApproximateReceiveCount);
      if (receiveCount === 3) return true;
      // 300 s in SQS, 300 ms here; then at once.
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: messaging.queueUrl('jobs'),
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: receiveCount === 1 ? 300 : 0,
        }),
      );
      return false;
    });
    // The default retry delay is far beyond the test's timeout: only the visibility timeout can deliver.
    const { messaging, sqs } = await startMessaging(worker, { timeScale: 0.001, retryDelayMs: 10_000_000 });

    await sqs.send(new SendMessageCommand({ QueueUrl: messaging.queueUrl('jobs'), MessageBody: 'retry me' }));
    await messaging.idle();

    expect(received.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    expect(new Set(handles).size).toBe(3);
    expect(messaging.deadLetters).toEqual([]);
  });

  it('keeps the time of the first receive across deliveries, as SQS does', async () => {
    const { worker, received } = recordingWorker(
      (record) => record.attributes.ApproximateReceiveCount === '3',
    );
    const { messaging, sqs } = await startMessaging(worker);
    await sqs.send(new SendMessageCommand({ QueueUrl: messaging.queueUrl('jobs'), MessageBody: 'x' }));
    await messaging.idle();

    const firsts = received.map((record) => record.attributes.ApproximateFirstReceiveTimestamp);
    expect(firsts).toHaveLength(3);
    expect(new Set(firsts).size).toBe(1);
  });

  it('changes the visibility of a batch, reporting the handles that are not in flight', async () => {
    let answer: unknown;
    const { worker, received } = recordingWorker(async (record) => {
      if (record.attributes.ApproximateReceiveCount === '2') return true;
      answer = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: messaging.queueUrl('jobs'),
          Entries: [
            { Id: 'mine', ReceiptHandle: record.receiptHandle, VisibilityTimeout: 0 },
            { Id: 'stale', ReceiptHandle: 'not-a-handle', VisibilityTimeout: 0 },
          ],
        }),
      );
      return false;
    });
    const { messaging, sqs } = await startMessaging(worker, { retryDelayMs: 10_000_000 });

    await sqs.send(new SendMessageCommand({ QueueUrl: messaging.queueUrl('jobs'), MessageBody: 'x' }));
    await messaging.idle();

    expect(received).toHaveLength(2);
    expect(answer).toMatchObject({
      Successful: [{ Id: 'mine' }],
      Failed: [{ Id: 'stale', Code: 'AWS.SimpleQueueService.MessageNotInflight', SenderFault: true }],
    });
  });

  it('refuses to change the visibility of a message that is no longer in flight', async () => {
    const { worker, received } = recordingWorker();
    const { messaging, sqs } = await startMessaging(worker);
    const QueueUrl = messaging.queueUrl('jobs');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'done' }));
    await messaging.idle();

    const refused = await sqs
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: received[0]?.receiptHandle,
          VisibilityTimeout: 10,
        }),
      )
      .catch((error: Error) => error);
    expect(refused).toMatchObject({ message: 'The message referred to is not in flight' });
  });
});

describe('the queue journal', () => {
  it('delivers after a restart what was queued, waiting or being processed, but not what was done', async () => {
    const journalFile = join(mkdtempSync(join(tmpdir(), 'journal-')), 'queues.jsonl');
    // The first run processes 'done', hangs on 'stuck' (the process dies during it), and 'waiting' is
    // still delayed when it dies.
    const hung = new Promise<never>(() => undefined);
    const first = await startMessaging(
      async (event) => (event.Records[0]?.body === 'stuck' ? hung : { batchItemFailures: [] }),
      { journalFile, timeScale: 0.001 },
    );
    const QueueUrl = first.messaging.queueUrl('jobs');
    await first.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'done' }));
    await first.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'stuck' }));
    await first.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'waiting', DelaySeconds: 900 }));
    await first.messaging.stop();

    const { worker, received } = recordingWorker();
    const second = await startMessaging(worker, { journalFile, timeScale: 0.001 });
    expect(second.messaging.resume()).toBe(2);
    await second.messaging.idle();
    expect(received.map((record) => record.body).sort()).toEqual(['stuck', 'waiting']);

    // Done with, they are not delivered a third time.
    const { worker: third, received: again } = recordingWorker();
    const last = await startMessaging(third, { journalFile });
    expect(last.messaging.resume()).toBe(0);
    expect(again).toEqual([]);
  });
});

describe('batch limits', () => {
  it('refuses, as AWS does, a batch of more than 10 messages or visibility changes, and more than 10 events', async () => {
    const { worker, received } = recordingWorker();
    const { messaging, sqs, events } = await startMessaging(worker);
    const QueueUrl = messaging.queueUrl('jobs');
    const eleven = Array.from({ length: 11 }, (_, n) => String(n));

    const sending = sqs.send(
      new SendMessageBatchCommand({ QueueUrl, Entries: eleven.map((Id) => ({ Id, MessageBody: Id })) }),
    );
    await expect(sending).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
    const changing = sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: eleven.map((Id) => ({ Id, ReceiptHandle: Id, VisibilityTimeout: 0 })),
      }),
    );
    await expect(changing).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
    const putting = events.send(
      new PutEventsCommand({ Entries: eleven.map(() => putEntry('prompt_template_version_created')) }),
    );
    await expect(putting).rejects.toMatchObject({ name: 'ValidationException' });
    await messaging.idle();

    expect(received).toEqual([]);
    expect(messaging.events).toEqual([]);
  });
});

describe('partial batch responses', () => {
  it('retries the whole batch when the worker names a message that is not in it, as Lambda does', async () => {
    const received: string[] = [];
    const worker: WorkerHandler = async (event) => {
      received.push(...event.Records.map((record) => record.attributes.ApproximateReceiveCount));
      if (received.length > 1) return { batchItemFailures: [] };
      return { batchItemFailures: [{ itemIdentifier: 'not-a-message-of-this-batch' }] };
    };
    const { messaging, sqs } = await startMessaging(worker);
    await sqs.send(new SendMessageCommand({ QueueUrl: messaging.queueUrl('jobs'), MessageBody: 'x' }));
    await messaging.idle();

    expect(received).toEqual(['1', '2']);
  });
});

describe('concurrency', () => {
  /** Sends six messages to a queue and answers the most batches its worker had under way at once. */
  async function mostAtOnce(maxConcurrency: number | undefined): Promise<number> {
    let active = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const full = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker: WorkerHandler = async () => {
      active++;
      most = Math.max(most, active);
      if (active === (maxConcurrency ?? 1)) release();
      await full;
      // Give the queue runner its chances to start more batches than it may.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      active--;
      return undefined;
    };
    const { messaging, sqs } = await startMessaging(worker, {
      queues: { jobs: queueDef({ maxConcurrency }) },
    });
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: messaging.queueUrl('jobs'),
        Entries: [1, 2, 3, 4, 5, 6].map((n) => ({ Id: String(n), MessageBody: String(n) })),
      }),
    );
    await messaging.idle();
    return most;
  }

  it('processes up to maxConcurrency batches of one queue at once', async () => {
    expect(await mostAtOnce(3)).toBe(3);
  });

  it('processes one batch at a time by default', async () => {
    expect(await mostAtOnce(undefined)).toBe(1);
  });
});

describe('secrets', () => {
  it('answers GetSecretValue through the Secrets Manager client, by name or ARN, and refuses others', async () => {
    const { messaging } = await startMessaging(recordingWorker().worker, {
      secrets: { 'local-master-key': 'c2VjcmV0' },
    });
    const secrets = new SecretsManagerClient({ endpoint: messaging.endpoint });

    const byName = await secrets.send(new GetSecretValueCommand({ SecretId: 'local-master-key' }));
    expect(byName).toMatchObject({ Name: 'local-master-key', SecretString: 'c2VjcmV0' });
    const byArn = await secrets.send(new GetSecretValueCommand({ SecretId: byName.ARN }));
    expect(byArn.SecretString).toBe('c2VjcmV0');

    const missing = await secrets
      .send(new GetSecretValueCommand({ SecretId: 'other' }))
      .catch((error: Error) => error);
    expect(missing).toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
