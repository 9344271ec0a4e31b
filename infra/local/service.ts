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
import { answerMismatch } from '../openapi/answers.ts';
import { docsPageRoutes } from '../openapi/docs-page.ts';
import { openApiText } from '../openapi/document.ts';
import { AUTHORIZER_HANDLER, JOB_QUEUES, type JobQueueDef, ROUTES } from '../routes.ts';
import { type Emulator, ensureBucket, ensureTable, startDynalite, startS3rver } from './emulators.ts';
import { type AuthorizerHandler, LocalGateway, type RouteHandler } from './gateway.ts';
import { type LocalEvent, LocalMessaging, type WorkerHandler } from './messaging.ts';

/**
 * The whole service on one machine: embedded emulators, in-process queues and events, the route table
 * behind a local gateway, and a seeded workspace and key. `npm start` and the end-to-end tests both
 * start it through this function.
 */
export interface LocalServiceOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
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
   * Check every success answer against the response schema its route declares, answering 500
   * `response_schema_mismatch` when it disagrees (the end-to-end tests turn this on).
   */
  checkAnswers?: boolean;
  onEvent?(event: LocalEvent): void;
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
  stop(): Promise<void>;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SEED_WORKSPACE = 'default';
/** Table and bucket name of the local service unless TABLE_NAME / BUCKET_NAME say otherwise. */
export const LOCAL_TABLE_NAME = 'promptops-local';
/** Written while the service runs, so `npm run keys` finds the local table without flags. */
export const ENDPOINTS_FILE = 'local-endpoints.json';

async function importHandler<T>(file: string): Promise<T> {
  const module = (await import(pathToFileURL(join(REPO_ROOT, file)).href)) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${file} does not export a handler function`);
  return module.handler;
}

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const dataDir = options.dataDir === null ? undefined : resolve(options.dataDir ?? '.data');
  const scratch = dataDir ? undefined : mkdtempSync(join(tmpdir(), 'promptops-'));
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  const bucketName = options.bucketName ?? LOCAL_TABLE_NAME;
  const stops: (() => Promise<void>)[] = [];

  try {
    let dynamodbEndpoint = options.dynamodbEndpoint;
    if (!dynamodbEndpoint) {
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
      const s3rver = await startS3rver(join(dataDir ?? scratch ?? '.', 's3'), bucketName);
      stops.push(s3rver.stop);
      s3Endpoint = s3rver.endpoint;
    }

    // The SDK insists on credentials; s3rver accepts only these, dynalite any. Other emulators: set your own.
    process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
    await ensureTable(dynamodbEndpoint, tableName);
    await ensureBucket(s3Endpoint, bucketName);

    const workers = new Map<string, Promise<WorkerHandler>>();
    const messaging = new LocalMessaging({
      queues: JOB_QUEUES as Record<string, JobQueueDef>,
      loadWorker: (file) => {
        if (!workers.has(file)) workers.set(file, importHandler<WorkerHandler>(file));
        return workers.get(file) as Promise<WorkerHandler>;
      },
      deadLetterFile: dataDir && join(dataDir, 'dead-letters.jsonl'),
      retryDelayMs: options.retryDelayMs,
      onEvent: options.onEvent,
    });
    const messagingEndpoint = await messaging.start();
    stops.push(() => messaging.stop());

    // The functions read these exactly as they read the variables the CDK stack sets in AWS.
    Object.assign(process.env, {
      [ENV.tableName]: tableName,
      [ENV.bucketName]: bucketName,
      [ENV.eventBusName]: 'promptops-local',
      [ENV.dynamodbEndpoint]: dynamodbEndpoint,
      [ENV.s3Endpoint]: s3Endpoint,
      [ENV.sqsEndpoint]: messagingEndpoint,
      [ENV.eventsEndpoint]: messagingEndpoint,
    });
    for (const name of Object.keys(JOB_QUEUES)) process.env[queueUrlEnv(name)] = messaging.queueUrl(name);

    const handlers = new Map<string, Promise<RouteHandler>>();
    const loadHandler = (file: string) => {
      if (!handlers.has(file)) handlers.set(file, importHandler<RouteHandler>(file));
      return handlers.get(file) as Promise<RouteHandler>;
    };
    // Import every function up front: a broken handler fails the start, not the first request.
    await Promise.all(ROUTES.map((route) => loadHandler(route.handler)));
    const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_HANDLER);

    const { workspaceId, apiKey } = await seed(dataDir, options.apiKey);
    // Generated on the first GET /openapi.json, from the handlers loaded above.
    let openApi: Promise<string> | undefined;

    const gateway = new LocalGateway({
      routes: ROUTES,
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
        '/openapi.json': async () => {
          openApi ??= openApiText({}, loadHandler);
          return { contentType: 'application/json', body: await openApi };
        },
        ...docsPageRoutes(),
      },
      checkAnswer: options.checkAnswers ? answerMismatch : undefined,
      onError: (error) => console.error('Gateway error', error),
    });
    const baseUrl = await gateway.listen(options.port ?? 3000, options.host);
    stops.push(() => gateway.close());

    if (dataDir) {
      writeFileSync(
        join(dataDir, ENDPOINTS_FILE),
        JSON.stringify({ dynamodbEndpoint, tableName, baseUrl }, null, 2),
      );
      stops.push(async () => rmSync(join(dataDir, ENDPOINTS_FILE), { force: true }));
    }
    if (scratch) stops.push(async () => rmSync(scratch, { recursive: true, force: true }));

    return {
      baseUrl,
      apiKey,
      workspaceId,
      dynamodbEndpoint,
      s3Endpoint,
      tableName,
      bucketName,
      messaging,
      stop: () => stopAll(stops),
    };
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
}

/** The workspace a job message is for (messages carry `workspaceId`). */
function messageWorkspace(body: string): number | undefined {
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
