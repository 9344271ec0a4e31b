import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  AUTHORIZER_CACHE_TTL_SECONDS,
  ENV,
  LAMBDA_PAYLOAD_LIMIT_BYTES,
  MAX_REQUEST_BODY_BYTES,
  queueUrlEnv,
} from '#shared/platform/config.ts';
import { setRunUpdatesPublisher } from '#shared/workflows/engine/updates.ts';
import { ensureUiBuilt } from '../../ui/build.ts';
import { answerMismatch } from '../openapi/answers.ts';
import { docsPageRoutes } from '../openapi/docs-page.ts';
import {
  AUTHORIZER_HANDLER,
  CHANGE_CONSUMERS,
  type ChangeConsumerDef,
  EVENT_RULES,
  type EventRuleDef,
  JOB_QUEUES,
  type JobQueueDef,
  ROUTES,
  type RouteDef,
  RUN_UPDATES_SOCKET_ACCESS,
  SCHEDULES,
  type ScheduleDef,
} from '../routes.ts';
import { type ChangeHandler, LocalChangeFeed } from './change-feed.ts';
import { dashboardRedirects } from './dashboard.ts';
import {
  allowBrowserUploads,
  type Emulator,
  ensureBucket,
  ensureTable,
  startDynalite,
  startS3rver,
} from './emulators.ts';
import type { LocalEvent } from './event-router.ts';
import { type AccessLogEntry, type AuthorizerHandler, LocalGateway, type RouteHandler } from './gateway.ts';
import {
  AUTHORIZER_GRANTS,
  type GrantedResources,
  type Grants,
  installGrantCheck,
  invokeWith,
} from './grants.ts';
import { LocalMessaging } from './messaging.ts';
import { ENDPOINTS_FILE, LOCAL_TABLE_NAME } from './names.ts';
import { RUN_UPDATES_PATH, RunUpdatesSocket } from './run-updates-socket.ts';
import { LocalSchedules, type ScheduleHandler } from './schedules.ts';
import type { WorkerHandler } from './sqs-queues.ts';

/**
 * The whole service on one machine: embedded emulators, in-process queues and events, the route table
 * behind a local gateway, and a seeded workspace and key. `npm start` and the end-to-end tests both
 * start it through this function.
 */
export interface LocalServiceOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
  /** Told each step of the start-up as it begins (a first start takes 15-20 s). */
  onProgress?: (step: string) => void;
  host?: string;
  /** Where dynalite and s3rver persist; null keeps everything in memory (tests). */
  dataDir?: string | null;
  /** The key to seed; otherwise one is generated once and kept in the data directory. */
  apiKey?: string;
  /** External emulators to use instead of the embedded ones. */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  tableName?: string;
  bucketName?: string;
  authorizerCacheTtlSeconds?: number;
  /** Base delay of local queue retries. */
  retryDelayMs?: number;
  /**
   * Multiplies every queue delay (DelaySeconds, visibility timeouts, retries): 0.001 turns a 5-minute
   * retry into 300 ms. Default 1.
   */
  timeScale?: number;
  /** Interval of every schedule instead of its `everyMinutes` (tests set a huge one, then `runSchedules`). */
  scheduleIntervalMs?: number;
  /** Enforce each function's declared grants on its AWS calls (default true). */
  enforceGrants?: boolean;
  /** Tables to serve instead of the route table's (tests of the runtime itself). */
  routes?: readonly RouteDef[];
  jobQueues?: Readonly<Record<string, JobQueueDef>>;
  eventRules?: Readonly<Record<string, EventRuleDef>>;
  schedules?: Readonly<Record<string, ScheduleDef>>;
  changeConsumers?: Readonly<Record<string, ChangeConsumerDef>>;
  /**
   * Check every success answer against the response schema its route declares, answering 500
   * `response_schema_mismatch` when it disagrees (the end-to-end tests turn this on).
   */
  checkAnswers?: boolean;
  onEvent?(event: LocalEvent): void;
  /** Told of every answered request (the access log `npm start` prints). */
  onAccess?(entry: AccessLogEntry): void;
  /**
   * Told of each AWS call of a route or the authorizer (IAM action, e.g. `dynamodb:PutItem`) before it
   * is sent; a promise returned holds the call until it settles. Needs `enforceGrants`.
   */
  beforeRouteAwsCall?(action: string): Promise<unknown> | undefined;
}

export interface LocalService {
  baseUrl: string;
  apiKey: string;
  workspaceId: number;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  tableName: string;
  bucketName: string;
  messaging: LocalMessaging;
  /** The table's change feed (captured writes delivered to the change consumers); `idle()` waits for it. */
  changes: LocalChangeFeed;
  /** The master-key secret's id (MASTER_KEY_SECRET_ID), answered by the local Secrets Manager. */
  masterKeySecretId: string;
  /** The provider credentials secret's id (PROVIDER_CREDENTIALS_SECRET_ID), answered likewise. */
  providerCredentialsSecretId: string;
  /** Runs every schedule now (one already running runs again after it) and resolves when all are done. */
  runSchedules(): Promise<void>;
  stop(): Promise<void>;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SEED_WORKSPACE = 'default';
export { ENDPOINTS_FILE, LOCAL_TABLE_NAME };
export const LOCAL_EVENT_BUS = 'promptops-local';
/** The local Secrets Manager's name for the master key, kept in the data directory's `master-key`. */
export const LOCAL_MASTER_KEY_SECRET_ID = 'promptops-local-master-key';
export const MASTER_KEY_FILE = 'master-key';
/**
 * The local Secrets Manager's name for the deployment's provider credentials: the data directory's
 * `provider-credentials.json` (a JSON object as in AWS), read at each GetSecretValue; `{}` without it.
 */
export const LOCAL_PROVIDER_CREDENTIALS_SECRET_ID = 'promptops-local-provider-credentials';
export const PROVIDER_CREDENTIALS_FILE = 'provider-credentials.json';

async function importHandler<T>(file: string): Promise<T> {
  const module = (await import(pathToFileURL(join(REPO_ROOT, file)).href)) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${file} does not export a handler function`);
  return module.handler;
}

/**
 * Scratch folders of services not stopped yet, removed when the process exits (a test worker, stopped by
 * a signal, runs no exit handler: test/global-setup.ts removes the run's temporary folder instead). Kept
 * on the global object with its one exit listener: a test worker evaluates this module afresh for each of
 * its files (test/setup.ts), and each evaluation must not add a listener.
 */
const SCRATCH_FOLDERS = Symbol.for('promptops.scratchFolders');

function scratchFolders(): Set<string> {
  const store = globalThis as { [SCRATCH_FOLDERS]?: Set<string> };
  if (!store[SCRATCH_FOLDERS]) {
    const folders = new Set<string>();
    process.once('exit', () => {
      for (const left of folders) rmSync(left, { recursive: true, force: true });
    });
    store[SCRATCH_FOLDERS] = folders;
  }
  return store[SCRATCH_FOLDERS];
}

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const dataDir = options.dataDir === null ? undefined : resolve(options.dataDir ?? '.data');
  const scratch = dataDir ? undefined : mkdtempSync(join(tmpdir(), 'promptops-'));
  if (scratch) scratchFolders().add(scratch);
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  const bucketName = options.bucketName ?? LOCAL_TABLE_NAME;
  const stops: (() => Promise<void>)[] = [];

  try {
    let dynamodbEndpoint = options.dynamodbEndpoint;
    const progress = options.onProgress ?? (() => {});
    if (!dynamodbEndpoint) {
      progress('starting DynamoDB (dynalite)');
      const dynalite: Emulator = await startDynalite(dataDir && join(dataDir, 'dynamodb'));
      stops.push(dynalite.stop);
      dynamodbEndpoint = dynalite.endpoint;
    }
    process.env.AWS_REGION ??= 'us-east-1';
    let s3Endpoint = options.s3Endpoint;
    if (!s3Endpoint) {
      // s3rver accepts only its own fixed credentials; dynalite accepts any.
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      progress('starting S3 (s3rver)');
      const s3rver = await startS3rver(join(dataDir ?? scratch ?? '.', 's3'), bucketName);
      stops.push(s3rver.stop);
      s3Endpoint = s3rver.endpoint;
    }

    // The SDK insists on credentials; s3rver accepts only these, dynalite any. Other emulators: set your own.
    process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
    progress(`creating the table ${tableName} and the bucket ${bucketName} if missing`);
    await ensureTable(dynamodbEndpoint, tableName);
    await ensureBucket(s3Endpoint, bucketName);

    const routes = options.routes ?? ROUTES;
    const queues = options.jobQueues ?? (JOB_QUEUES as Record<string, JobQueueDef>);
    const s3Url = new URL(s3Endpoint);
    const resources: GrantedResources = {
      tableName,
      s3Host: s3Url.host,
      bucketName,
      eventBusName: LOCAL_EVENT_BUS,
      masterKeySecretId: LOCAL_MASTER_KEY_SECRET_ID,
      providerCredentialsSecretId: LOCAL_PROVIDER_CREDENTIALS_SECRET_ID,
    };
    const enforce = options.enforceGrants ?? true;
    if (enforce) installGrantCheck(); // fails the start if the SDK clients would escape the check
    // Each function's AWS calls run with the grants of its row, as under its IAM role in AWS.
    const invoke = <T>(
      functionName: string,
      grants: Grants,
      call: () => Promise<T>,
      ownQueue?: string,
      beforeCall?: (action: string) => Promise<unknown> | undefined,
    ) =>
      enforce
        ? invokeWith(
            {
              functionName,
              grants,
              ownQueue,
              resources,
              onDenied: (message) => console.error(`Access denied (local grants): ${message}`),
              beforeCall,
            },
            call,
          )
        : call();

    const workers = new Map<string, Promise<WorkerHandler>>();
    const messaging = new LocalMessaging({
      queues,
      rules: options.eventRules ?? EVENT_RULES,
      busName: LOCAL_EVENT_BUS,
      secrets: {
        [LOCAL_MASTER_KEY_SECRET_ID]: masterKey(dataDir),
        [LOCAL_PROVIDER_CREDENTIALS_SECRET_ID]: () => providerCredentials(dataDir),
      },
      loadWorker: (file) => {
        if (!workers.has(file)) workers.set(file, importHandler<WorkerHandler>(file));
        return workers.get(file) as Promise<WorkerHandler>;
      },
      deadLetterFile: dataDir && join(dataDir, 'dead-letters.jsonl'),
      journalFile: dataDir && join(dataDir, 'queues.jsonl'),
      retryDelayMs: options.retryDelayMs,
      timeScale: options.timeScale,
      invokeWorker: (queue, def, call) =>
        invoke(`worker of queue ${queue} (${def.worker})`, def, call, queue),
      onEvent: options.onEvent,
    });
    const messagingEndpoint = await messaging.start();
    stops.push(() => messaging.stop());

    // The functions read these exactly as they read the variables the CDK stack sets in AWS.
    Object.assign(process.env, {
      [ENV.tableName]: tableName,
      [ENV.bucketName]: bucketName,
      [ENV.eventBusName]: LOCAL_EVENT_BUS,
      [ENV.masterKeySecretId]: LOCAL_MASTER_KEY_SECRET_ID,
      [ENV.providerCredentialsSecretId]: LOCAL_PROVIDER_CREDENTIALS_SECRET_ID,
      [ENV.dynamodbEndpoint]: dynamodbEndpoint,
      [ENV.s3Endpoint]: s3Endpoint,
      // Presigned URLs name the emulator (path-style): the dashboard's CSP lets the page PUT there.
      [ENV.uploadOrigin]: new URL(s3Endpoint).origin,
      [ENV.sqsEndpoint]: messagingEndpoint,
      [ENV.eventsEndpoint]: messagingEndpoint,
      [ENV.secretsEndpoint]: messagingEndpoint,
    });
    for (const name of Object.keys(queues)) process.env[queueUrlEnv(name)] = messaging.queueUrl(name);

    const changes = new LocalChangeFeed({
      consumers: options.changeConsumers ?? CHANGE_CONSUMERS,
      tableName,
      dynamodbEndpoint,
      loadHandler: (file) => importHandler<ChangeHandler>(file),
      invoke: (name, def, call) => invoke(`change consumer ${name} (${def.handler})`, def, call),
      retryDelayMs: options.retryDelayMs,
      timeScale: options.timeScale,
      onError: (name, error) => console.error(`Change consumer ${name} failed`, error),
    });
    changes.start();
    stops.push(() => changes.stop());

    const handlers = new Map<string, Promise<RouteHandler>>();
    const loadHandler = (file: string) => {
      if (!handlers.has(file)) handlers.set(file, importHandler<RouteHandler>(file));
      return handlers.get(file) as Promise<RouteHandler>;
    };
    // The dashboard's files, built when missing or older than their sources (well under a second).
    if (routes.some((route) => route.site === 'dashboard')) await ensureUiBuilt();
    // Import every function up front: a broken handler fails the start, not the first request.
    await Promise.all(routes.map((route) => loadHandler(route.handler)));
    const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_HANDLER);

    progress('loading the functions and seeding the default workspace');
    const { workspaceId, apiKey } = await seed(dataDir, options.apiKey);
    // What was queued when the service last stopped (a kill -9 included) is delivered now.
    messaging.resume();
    // The run updates' WebSocket, and the engine's adapter that publishes to it.
    const runUpdates = new RunUpdatesSocket({
      invoke: (call) => invoke(`WebSocket ${RUN_UPDATES_PATH}`, RUN_UPDATES_SOCKET_ACCESS, call),
      onError: (error) => console.error('Run updates socket error', error),
    });
    setRunUpdatesPublisher(runUpdates);

    const gateway = new LocalGateway({
      routes,
      loadHandler,
      authorizer,
      authorizerCacheTtlSeconds: options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS,
      maxBodyBytes: MAX_REQUEST_BODY_BYTES,
      maxPayloadBytes: LAMBDA_PAYLOAD_LIMIT_BYTES,
      localRoutes: {
        '/__local/events': (workspaceId) =>
          messaging.events.filter((event) => event.detail.workspace_id === workspaceId),
        '/__local/dead-letters': (workspaceId) =>
          messaging.deadLetters.filter((letter) => messageWorkspace(letter.body) === workspaceId),
      },
      publicRoutes: {
        ...docsPageRoutes(),
        ...dashboardRedirects(),
      },
      upgrades: { [RUN_UPDATES_PATH]: runUpdates.upgrade },
      checkAnswer: options.checkAnswers ? answerMismatch : undefined,
      onAccess: options.onAccess,
      invoke: (fn, call) =>
        fn === 'authorizer'
          ? invoke(
              `API key authorizer (${AUTHORIZER_HANDLER})`,
              AUTHORIZER_GRANTS,
              call,
              undefined,
              options.beforeRouteAwsCall,
            )
          : invoke(
              `${fn.method} ${fn.path} (${fn.handler})`,
              fn,
              call,
              undefined,
              options.beforeRouteAwsCall,
            ),
      onError: (error) => console.error('Gateway error', error),
    });
    const baseUrl = await gateway.listen(options.port ?? 3000, options.host);
    stops.push(() => gateway.close());
    // The dashboard's pages PUT uploads to the emulator from the gateway's origin, by address or as localhost.
    const gatewayUrl = new URL(baseUrl);
    const cors = allowBrowserUploads(s3Endpoint, bucketName, [
      gatewayUrl.origin,
      `${gatewayUrl.protocol}//localhost:${gatewayUrl.port}`,
    ]);
    // An external emulator may not implement bucket CORS (MinIO): everything but the dashboard's upload works.
    await (options.s3Endpoint
      ? cors.catch((error: Error) =>
          console.warn(
            `The S3 emulator refused the bucket's CORS rule (${error.name}): the dashboard cannot upload files to it`,
          ),
        )
      : cors);
    // Stopped first: its sockets left the gateway's server when they upgraded.
    stops.push(async () => {
      setRunUpdatesPublisher(undefined);
      await runUpdates.close();
    });

    // After seeding: a schedule (the event sweep) may read what the seed wrote.
    const schedules = new LocalSchedules({
      schedules: options.schedules ?? SCHEDULES,
      loadHandler: (file) => importHandler<ScheduleHandler>(file),
      intervalMs: options.scheduleIntervalMs,
      invoke: (name, def, call) => invoke(`schedule ${name} (${def.handler})`, def, call),
      onError: (name, error) => console.error(`Schedule ${name} failed`, error),
    });
    stops.push(() => schedules.stop());
    await schedules.start();

    if (dataDir) {
      writeFileSync(
        join(dataDir, ENDPOINTS_FILE),
        JSON.stringify({ dynamodbEndpoint, tableName, baseUrl }, null, 2),
      );
      stops.push(async () => rmSync(join(dataDir, ENDPOINTS_FILE), { force: true }));
    }
    if (scratch)
      stops.push(async () => {
        rmSync(scratch, { recursive: true, force: true });
        scratchFolders().delete(scratch);
      });

    return {
      baseUrl,
      apiKey,
      workspaceId,
      dynamodbEndpoint,
      s3Endpoint,
      tableName,
      bucketName,
      messaging,
      changes,
      masterKeySecretId: LOCAL_MASTER_KEY_SECRET_ID,
      providerCredentialsSecretId: LOCAL_PROVIDER_CREDENTIALS_SECRET_ID,
      runSchedules: () => schedules.runAll(),
      stop: () => stopAll(stops),
    };
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
}

/**
 * The master key the local Secrets Manager serves: kept in the data directory (48 random bytes, base64,
 * readable by the owner only), created on the first start; a new one per start in memory.
 */
function masterKey(dataDir: string | undefined): string {
  const generate = () => randomBytes(48).toString('base64');
  if (!dataDir) return generate();
  const file = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = generate();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * What the local provider credentials secret holds: the data directory's `provider-credentials.json`
 * as written (the functions check its shape, as in AWS), else no keys. OPENAI_API_KEY /
 * ANTHROPIC_API_KEY in the environment of `npm start` come first anyway.
 */
function providerCredentials(dataDir: string | undefined): string {
  const file = dataDir && join(dataDir, PROVIDER_CREDENTIALS_FILE);
  return file && existsSync(file) ? readFileSync(file, 'utf8') : '{}';
}

/** The workspace a job message is for (messages carry `workspaceId`). */
export function messageWorkspace(body: string): number | undefined {
  try {
    return (JSON.parse(body) as { workspaceId?: number }).workspaceId;
  } catch {
    return undefined;
  }
}

async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  // Last started, first stopped: the gateway before the stores it writes to.
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
}

/** The seeded workspace and key: the given key, else the one generated on the first start. */
async function seed(dataDir: string | undefined, givenKey: string | undefined) {
  const { ensureWorkspace, createApiKey, apiKeyExists, findApiKey } = await import(
    '#shared/auth/api-keys.ts'
  );
  const { workspaceId } = await ensureWorkspace(SEED_WORKSPACE);
  const keyFile = dataDir && join(dataDir, 'api-key');
  const remembered = keyFile && existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined;
  const wanted = givenKey ?? remembered;
  if (wanted && (await apiKeyExists(wanted))) {
    // Printing a key that cannot call the service would only mislead: refuse to start instead.
    const auth = await findApiKey(wanted);
    if (auth?.workspaceId !== workspaceId) {
      throw new Error(
        `The API key to seed ${givenKey ? '(PROMPTOPS_API_KEY) ' : ''}is revoked or belongs to another workspace than "${SEED_WORKSPACE}"`,
      );
    }
    return { workspaceId, apiKey: wanted };
  }
  const { key } = await createApiKey(workspaceId, { key: wanted });
  if (keyFile && !givenKey) {
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  }
  return { workspaceId, apiKey: key };
}
