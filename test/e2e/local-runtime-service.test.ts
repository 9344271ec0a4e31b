import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MASTER_KEY_FILE, PROVIDER_CREDENTIALS_FILE } from '#infra/local/service.ts';
import type { JobQueueDef, RouteDef, ScheduleDef } from '#infra/routes.ts';
import { ENV, queueUrlEnv } from '#shared/platform/config.ts';
import { workerOutcomes } from '#test/support/local-runtime/aws-call-worker.ts';
import { scheduleProbe } from '#test/support/local-runtime/schedule.ts';
import { startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The local service with route, queue and schedule rows of its own (fixtures that make one AWS call
 * each): grants enforced as IAM would, schedules, and the master key in the data directory.
 */
const FIXTURES = 'test/support/local-runtime';
const route = (path: string, grants: Omit<RouteDef, 'method' | 'path' | 'handler'>): RouteDef => ({
  method: 'GET',
  path: `/fixture/${path}/{call}`,
  handler: `${FIXTURES}/aws-call-route.ts`,
  ...grants,
});
const worker = (grants: Partial<JobQueueDef>): JobQueueDef => ({
  worker: `${FIXTURES}/aws-call-worker.ts`,
  batchSize: 1,
  maxReceiveCount: 1,
  timeoutSeconds: 30,
  memoryMb: 256,
  table: 'read',
  ...grants,
});
const schedule: ScheduleDef = {
  handler: `${FIXTURES}/schedule.ts`,
  everyMinutes: 5,
  description: 'counts its runs',
  table: 'read',
};

const dataDir = mkdtempSync(join(tmpdir(), 'promptops-runtime-service-'));
let service: TestService;
const denials = vi.fn();

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(denials);
  service = await startTestService({
    dataDir,
    // The fixture routes declare no response schemas.
    checkAnswers: false,
    routes: [
      route('reader', { table: 'read' }),
      route('writer', {
        table: 'write',
        bucket: 'write',
        queues: ['declared'],
        events: true,
        masterKey: true,
      }),
      route('bucket-reader', { table: 'read', bucket: 'read' }),
    ],
    jobQueues: {
      declared: worker({ queues: ['declared'] }),
      'other-queue': worker({}),
    },
    eventRules: {},
    schedules: { probe: schedule },
  });
});

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const fixture = async (path: string, call: string) =>
  (await service.call('GET', `/fixture/${path}/${encodeURIComponent(call)}`)).body;

describe('grants', () => {
  it('lets a row make the calls it declares', async () => {
    for (const call of ['get-item', 'put-item', 'get-object', 'put-object', 'put-events', 'get-secret'])
      expect(await fixture('writer', call), call).toEqual({ ok: true });
    expect(await fixture('writer', 'send:declared')).toEqual({ ok: true });
    expect(await fixture('bucket-reader', 'get-object')).toEqual({ ok: true });
  });

  it('refuses a write to the table from a read-only row, as IAM does, and logs it', async () => {
    denials.mockClear();
    const items = await service.countItems();
    const answer = await fixture('reader', 'put-item');
    expect(answer).toEqual({
      ok: false,
      name: 'AccessDeniedException',
      message: expect.stringMatching(
        /GET \/fixture\/reader\/\{call\}.* is not authorized to perform: dynamodb:PutItem because its row grants table: 'read'/,
      ),
    });
    expect(await service.countItems()).toBe(items);
    expect(denials).toHaveBeenCalledWith(expect.stringContaining('dynamodb:PutItem'));
    // Reading is what the row grants.
    expect(await fixture('reader', 'get-item')).toEqual({ ok: true });
  });

  it('refuses what a row does not declare: a bucket, a queue, the bus, the master key', async () => {
    const refused = {
      'get-object': /s3:GetObject because its row grants no bucket access/,
      'send:declared': /sqs:SendMessage because its row does not list queue declared in queues/,
      'put-events': /events:PutEvents because its row does not declare events: true/,
      'get-secret': /secretsmanager:GetSecretValue because its row does not declare masterKey: true/,
    };
    for (const [call, message] of Object.entries(refused)) {
      expect(await fixture('reader', call), call).toEqual({
        ok: false,
        name: expect.stringMatching(/^AccessDenied/),
        message: expect.stringMatching(message),
      });
    }
    expect(await fixture('bucket-reader', 'put-object')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/s3:PutObject because its row grants bucket: 'read'/),
    });
  });

  it("refuses a worker's send to a queue it does not declare, and allows the one it does", async () => {
    const sqs = new SQSClient({ endpoint: process.env[ENV.sqsEndpoint] });
    for (const [queue, call] of [
      ['declared', 'send:other-queue'],
      ['declared', 'send:declared'],
      ['other-queue', 'send:declared'],
    ]) {
      // The test itself runs outside any function: its own calls are not restricted.
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: process.env[queueUrlEnv(queue as string)],
          MessageBody: JSON.stringify({ call }),
        }),
      );
      await service.messaging.idle();
      expect(workerOutcomes.get(call as string), `${queue} -> ${call}`).toEqual(
        queue === 'declared' && call === 'send:declared'
          ? { ok: true }
          : {
              ok: false,
              name: 'AccessDeniedException',
              message: expect.stringMatching(
                new RegExp(`worker of queue ${queue} .* is not authorized to perform: sqs:SendMessage`),
              ),
            },
      );
      workerOutcomes.clear();
    }
  });
});

describe('schedules', () => {
  it('ran each schedule once at start-up, with the event an EventBridge schedule sends', () => {
    expect(scheduleProbe.runs).toBe(1);
    expect(scheduleProbe.events[0]).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      resources: [expect.stringMatching(/:rule\/.*probe$/)],
      detail: {},
    });
  });

  it('runs them on demand, never two runs of one schedule at once', async () => {
    const before = scheduleProbe.runs;
    let open: () => void = () => undefined;
    scheduleProbe.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = service.runSchedules();
    const second = service.runSchedules();
    const third = service.runSchedules();
    open();
    await Promise.all([first, second, third]);
    scheduleProbe.gate = undefined;
    // The first run, then one more for the calls made while it ran.
    expect(scheduleProbe.runs).toBe(before + 2);
    expect(scheduleProbe.maxActive).toBe(1);
  });

  it('logs a failed run instead of throwing it', async () => {
    denials.mockClear();
    scheduleProbe.fail = true;
    await service.runSchedules();
    scheduleProbe.fail = false;
    expect(denials).toHaveBeenCalledWith('Schedule probe failed', expect.any(Error));
  });
});

describe('master key', () => {
  it('keeps a 48-byte key in the data directory, readable by its owner only, served as the secret', async () => {
    const file = join(dataDir, MASTER_KEY_FILE);
    const key = readFileSync(file, 'utf8').trim();
    expect(Buffer.from(key, 'base64')).toHaveLength(48);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const secrets = new SecretsManagerClient({ endpoint: process.env[ENV.secretsEndpoint] });
    const secret = await secrets.send(
      new GetSecretValueCommand({ SecretId: process.env[ENV.masterKeySecretId] }),
    );
    expect(secret).toMatchObject({ Name: service.masterKeySecretId, SecretString: key });
  });
});

describe('provider credentials', () => {
  it("serves the data directory's provider-credentials.json as the secret, read at each call, else {}", async () => {
    const secrets = new SecretsManagerClient({ endpoint: process.env[ENV.secretsEndpoint] });
    const read = async () =>
      (
        await secrets.send(
          new GetSecretValueCommand({ SecretId: process.env[ENV.providerCredentialsSecretId] }),
        )
      ).SecretString;
    expect(process.env[ENV.providerCredentialsSecretId]).toBe(service.providerCredentialsSecretId);
    expect(await read()).toBe('{}');
    const file = join(dataDir, PROVIDER_CREDENTIALS_FILE);
    writeFileSync(file, '{"OPENAI_API_KEY": "sk-local"}');
    try {
      expect(await read()).toBe('{"OPENAI_API_KEY": "sk-local"}');
    } finally {
      rmSync(file);
    }
  });
});
