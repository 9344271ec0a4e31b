import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { startDynalite, startS3rver } from '#infra/local/emulators.ts';
import type { LocalMessaging } from '#infra/local/messaging.ts';
import {
  type LocalService,
  type LocalServiceOptions,
  messageWorkspace,
  startLocalService,
} from '#infra/local/service.ts';
import { ROLLUP_KEY_MARK } from '#shared/analytics/rollup-item.ts';
import type { Permissions } from '#shared/platform/auth-context.ts';
import { COUNTER_PREFIX } from '#shared/platform/ids.ts';

/**
 * The local runtime for end-to-end tests: in memory, on a free port, with helpers to call routes and
 * to count what the table and bucket hold (bad input must leave both unchanged).
 */
/** A day: no schedule runs on its own timer during a test file. */
const TEST_SCHEDULE_INTERVAL_MS = 24 * 60 * 60 * 1000;

export interface CallOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  /** The X-API-KEY to send; null sends none. Defaults to the seeded key. */
  key?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestService extends LocalService {
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  /** Items in the table, id counters aside. */
  countItems(): Promise<number>;
  countObjects(): Promise<number>;
  /**
   * An API key (every permission) of a new user of another workspace, created under that name if need
   * be; the user has the e-mail address `email`, or none.
   */
  otherWorkspaceKey(name: string, options?: { email?: string }): Promise<string>;
  /** A new API key of the test workspace with only these permissions (`{ request_logs: 'read' }`). */
  keyWithPermissions(permissions: Permissions): Promise<string>;
  /**
   * Calls a route that must refuse (4xx/5xx, error body) and leave the table and bucket unchanged (their
   * counts are compared only when the route sends a write).
   */
  rejected<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
}

/**
 * Any option of the local service may be given (`timeScale`, `retryDelayMs`, other route tables...).
 * Schedules run once at start-up and then only when the test calls `runSchedules()`.
 */
export async function startTestService(options: LocalServiceOptions = {}): Promise<TestService> {
  if (process.env[SHARED_SERVICE_ENV] !== 'shared') return startOwnTestService(options);
  if (Object.keys(options).length > 0) {
    throw new Error(
      'A file that starts the test service with options needs a service of its own: move it out of SHARED_SERVICE_FILES, or into UI_OWN_SERVICE_FILES for a browser file (vitest.config.ts)',
    );
  }
  return sharedTestService();
}

/**
 * Set to `shared` by the e2e-shared and ui-shared projects (vitest.config.ts), whose files run one after
 * another in a worker that keeps its modules: they share one local service per worker.
 */
export const SHARED_SERVICE_ENV = 'PROMPTOPS_TEST_SERVICE';

/** Kept on the global object, which outlives any fresh evaluation of this module. */
const SHARED_SERVICE = Symbol.for('promptops.sharedTestService');

interface SharedService {
  service: LocalService;
  writeWatchers: WriteWatchers;
  /** The variables the service set (endpoints, queue URLs): `test/setup.ts` removes them after each file. */
  environment: Record<string, string | undefined>;
}

/**
 * The worker's service (started by its first file) seen by one file: a workspace and key of its own, so
 * what another file wrote is never in its lists; `stop()` only waits until the queues and the change
 * feed are idle, so the next file starts on a quiet service.
 */
async function sharedTestService(): Promise<TestService> {
  const store = globalThis as { [SHARED_SERVICE]?: Promise<SharedService> };
  store[SHARED_SERVICE] ??= (async () => {
    const before = { ...process.env };
    const writeWatchers: WriteWatchers = new Set();
    const service = await startWatchedService({}, writeWatchers);
    const environment = Object.fromEntries(
      Object.entries(process.env).filter(([name, value]) => before[name] !== value),
    );
    return { service, writeWatchers, environment };
  })();
  const { service, writeWatchers, environment } = await store[SHARED_SERVICE];
  Object.assign(process.env, environment);
  const { ensureWorkspace, createApiKey } = await import('#shared/auth/api-keys.ts');
  const { workspaceId } = await ensureWorkspace(`test-file-${randomUUID()}`);
  const { key } = await createApiKey(workspaceId);
  const workspaces = new Set([workspaceId]);
  const own = testHelpers({ ...service, apiKey: key, workspaceId }, writeWatchers, workspaces);
  return {
    ...own,
    messaging: workspaceMessaging(service.messaging, workspaces),
    // Another file's workspace of the same name would be this one's: names are scoped to the file.
    otherWorkspaceKey: (name, options) =>
      own.otherWorkspaceKey(`${name} (of workspace ${workspaceId})`, options),
    stop: async () => {
      await service.changes.idle();
      await service.messaging.idle();
    },
  };
}

/**
 * The worker's messaging as one file sees it: `events` and `deadLetters` hold only those of its
 * workspaces (its own and its `otherWorkspaceKey` ones; the other files' stay in the worker's lists),
 * everything else is the service's own.
 */
function workspaceMessaging(messaging: LocalMessaging, workspaces: ReadonlySet<number>): LocalMessaging {
  const ofFile = (workspaceId: number | undefined) =>
    workspaceId !== undefined && workspaces.has(workspaceId);
  return new Proxy(messaging, {
    get(target, property) {
      if (property === 'events')
        return target.events.filter((event) => ofFile(event.detail.workspace_id as number | undefined));
      if (property === 'deadLetters')
        return target.deadLetters.filter((letter) => ofFile(messageWorkspace(letter.body)));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Told of each write a route is about to send while a `rejected()` call is in flight. */
type WriteWatchers = Set<() => Promise<unknown>>;

async function startOwnTestService(options: LocalServiceOptions): Promise<TestService> {
  const writeWatchers: WriteWatchers = new Set();
  const ownStorage = ['dataDir', 'dynamodbEndpoint', 's3Endpoint', 'tableName', 'bucketName'].some(
    (name) => name in options,
  );
  if (ownStorage) return testHelpers(await startWatchedService(options, writeWatchers), writeWatchers);
  // A table and a bucket of its own in the worker's emulators: as empty as new ones, without starting them.
  const emulators = await workerEmulators();
  // s3rver takes only its own credentials (the service sets them only for an s3rver it starts itself);
  // test/setup.ts restores the environment after the file.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const name = `test-${randomUUID().slice(0, 8)}`;
  const service = await startWatchedService(
    {
      ...options,
      dynamodbEndpoint: emulators.dynamodb,
      s3Endpoint: emulators.s3,
      tableName: name,
      bucketName: name,
    },
    writeWatchers,
  );
  return testHelpers(
    {
      ...service,
      stop: async () => {
        await service.stop();
        // The emulators keep every table in memory and every bucket on disk until the worker ends; the
        // sandbox's threads belong to this file's modules, which the next file evaluates afresh.
        await new DynamoDBClient({ endpoint: emulators.dynamodb }).send(
          new DeleteTableCommand({ TableName: name }),
        );
        rmSync(join(emulators.directory, name), { recursive: true, force: true });
        await (await import('#shared/sandbox/sandbox.ts')).closeSandbox();
      },
    },
    writeWatchers,
  );
}

interface WorkerEmulators {
  dynamodb: string;
  s3: string;
  /** s3rver's folder: a bucket is the folder of its name. */
  directory: string;
}

/** Kept on the global object, which outlives any fresh evaluation of this module. */
const WORKER_EMULATORS = Symbol.for('promptops.testEmulators');

/**
 * The worker's DynamoDB and S3 emulators, started by its first file that needs a service of its own and
 * no storage options: starting dynalite (a process) and s3rver for each file cost about 0.7 s of CPU.
 * They end with the worker's process; their folder is under the run's temporary folder, which
 * test/global-setup.ts removes. A start that failed is tried again by the next file.
 */
function workerEmulators(): Promise<WorkerEmulators> {
  const store = globalThis as { [WORKER_EMULATORS]?: Promise<WorkerEmulators> };
  store[WORKER_EMULATORS] ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), 'promptops-emulators-'));
    const [dynalite, s3rver] = await Promise.all([
      startDynalite(undefined),
      startS3rver(directory, 'promptops-test-emulators'),
    ]);
    return { dynamodb: dynalite.endpoint, s3: s3rver.endpoint, directory };
  })().catch((error: unknown) => {
    delete store[WORKER_EMULATORS];
    throw error;
  });
  return store[WORKER_EMULATORS];
}

function startWatchedService(
  options: LocalServiceOptions,
  writeWatchers: WriteWatchers,
): Promise<LocalService> {
  // Every success answer is checked against its route's declared response schema (a mismatch is a 500
  // `response_schema_mismatch`, which `call` turns into a failure naming what disagrees).
  return startLocalService({
    port: 0,
    dataDir: null,
    retryDelayMs: 20,
    checkAnswers: true,
    scheduleIntervalMs: TEST_SCHEDULE_INTERVAL_MS,
    ...options,
    beforeRouteAwsCall(action) {
      const outside = options.beforeRouteAwsCall?.(action);
      if (writeWatchers.size === 0 || !STORE_WRITES.has(action)) return outside;
      return Promise.all([outside, ...[...writeWatchers].map((watcher) => watcher())]);
    },
  });
}

/**
 * The helpers of a test service whose calls use `service.apiKey` and `service.workspaceId`;
 * `workspaces` is told of each workspace `otherWorkspaceKey` creates.
 */
function testHelpers(
  service: LocalService,
  writeWatchers: WriteWatchers,
  workspaces = new Set<number>(),
): TestService {
  const dynamo = new DynamoDBClient({ endpoint: service.dynamodbEndpoint });
  const s3 = new S3Client({ endpoint: service.s3Endpoint, forcePathStyle: true });

  async function call(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const url = new URL(path, service.baseUrl);
    for (const [name, value] of Object.entries(opts.query ?? {})) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? service.apiKey : opts.key;
    if (key !== null) headers['X-API-KEY'] = key;
    let body: string | Buffer | undefined = opts.rawBody;
    if (body === undefined && opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['Content-Type'] ??= 'application/json';
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    const mismatch = parsed as { error?: unknown; message?: string } | null;
    if (response.status === 500 && mismatch?.error === 'response_schema_mismatch') {
      throw new Error(mismatch.message);
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  // Id counters are left out: any request may reserve a block of ids (ids have gaps by design). So are
  // analytics rollups, which the change feed writes after the request that logged.
  async function countItems(): Promise<number> {
    let count = 0;
    for await (const page of paginateScan(
      { client: dynamo },
      {
        TableName: service.tableName,
        Select: 'COUNT',
        FilterExpression: 'NOT begins_with(PK, :counter) AND NOT contains(PK, :rollup)',
        ExpressionAttributeValues: { ':counter': { S: COUNTER_PREFIX }, ':rollup': { S: ROLLUP_KEY_MARK } },
      },
    )) {
      count += page.Count ?? 0;
    }
    return count;
  }

  async function countObjects(): Promise<number> {
    let count = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: service.bucketName, ContinuationToken: token }),
      );
      count += page.KeyCount ?? 0;
      token = page.NextContinuationToken;
    } while (token);
    return count;
  }

  // Most refusals write nothing at all: the table and bucket are counted only when the route is about to
  // write (a claim it undoes, a lock), just before its first write, and again after the answer.
  async function rejected(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    // The counts run outside the route's invocation, whose grants do not cover a Scan.
    const outsideRoute = AsyncLocalStorage.snapshot();
    let before: Promise<[number, number]> | undefined;
    const watcher = () => (before ??= outsideRoute(() => Promise.all([countItems(), countObjects()])));
    writeWatchers.add(watcher);
    let answer: CallResult;
    try {
      answer = await call(method, path, opts);
    } finally {
      writeWatchers.delete(watcher);
    }
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBeGreaterThanOrEqual(400);
    expect(answer.body).toMatchObject({
      success: false,
      message: expect.any(String),
      error: expect.any(String),
    });
    if (before) {
      const [items, objects] = await before;
      expect(await countItems(), 'table items after a rejected request').toBe(items);
      expect(await countObjects(), 'bucket objects after a rejected request').toBe(objects);
    }
    return answer;
  }

  async function otherWorkspaceKey(name: string, options: { email?: string } = {}): Promise<string> {
    // Loaded on use, after the service has set the environment the domain code reads.
    const { ensureWorkspace, createApiKey } = await import('#shared/auth/api-keys.ts');
    const { workspaceId } = await ensureWorkspace(name);
    workspaces.add(workspaceId);
    return (await createApiKey(workspaceId, { email: options.email })).key;
  }

  async function keyWithPermissions(permissions: Permissions): Promise<string> {
    const { createApiKey } = await import('#shared/auth/api-keys.ts');
    return (await createApiKey(service.workspaceId, { permissions })).key;
  }

  return { ...service, call, countItems, countObjects, rejected, otherWorkspaceKey, keyWithPermissions };
}

/** The calls that may change what the table or the bucket holds (the grant check's action names). */
const STORE_WRITES = new Set([
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  's3:PutObject',
  's3:DeleteObject',
]);

/** A minimal valid POST /log-request body; override any field. */
export function logRequestBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    provider: 'openai',
    model: 'gpt-4o',
    input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello!' }] }] },
    output: {
      type: 'chat',
      messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hi there!' }] }],
    },
    request_start_time: '2024-01-15T10:30:00Z',
    request_end_time: '2024-01-15T10:30:05Z',
    ...overrides,
  };
}
