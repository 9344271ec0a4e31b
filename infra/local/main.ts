import { resolve } from 'node:path';
import { ENDPOINTS_FILE } from './names.ts';
import { checkPortFree, checkSettings, claimDataDir, parsePort, StartupError } from './preflight.ts';
import type { LocalService } from './service.ts';

/** `npm start`: the whole service locally, on its embedded emulators unless endpoints are given. */
const dataDir = process.env.PROMPTOPS_DATA_DIR || '.data';
const host = process.env.HOST || '127.0.0.1';

/** A start-up failure is one line that says what to do, and exit code 1; never a stack trace. */
function fail(error: unknown): never {
  const message =
    error instanceof StartupError
      ? error.message
      : `could not start: ${(error as Error).message ?? String(error)}`;
  console.error(`promptops: ${message}`);
  process.exit(1);
}

let releaseDataDir = () => {};
let service: LocalService;
try {
  const port = parsePort(process.env.PORT);
  checkSettings(process.env);
  await checkPortFree(host, port);
  releaseDataDir = claimDataDir(resolve(dataDir));
  // Loaded only now: the runtime imports every function, and some read their settings as they load.
  const { startLocalService } = await import('./service.ts');
  service = await startLocalService({
    port,
    host,
    dataDir,
    onProgress: (step) => console.log(`promptops: ${step}...`),
    apiKey: process.env.PROMPTOPS_API_KEY || undefined,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: process.env.S3_ENDPOINT || undefined,
    tableName: process.env.TABLE_NAME || undefined,
    bucketName: process.env.BUCKET_NAME || undefined,
    onAccess: (entry) => console.log(JSON.stringify({ level: 'INFO', message: 'access', ...entry })),
    onEvent: (event) =>
      console.log(JSON.stringify({ level: 'INFO', message: 'event', bus: event.bus, ...event.detail })),
  });
} catch (error) {
  releaseDataDir();
  fail(error);
}

console.log(`promptops is listening on ${service.baseUrl}
  dashboard  ${service.baseUrl}/ui/ (sign in with the API key below)
  workspace  "default" (id ${service.workspaceId})
  DynamoDB   ${service.dynamodbEndpoint} (table ${service.tableName})
  S3         ${service.s3Endpoint} (bucket ${service.bucketName})
  data       ${dataDir} (endpoints in ${dataDir}/${ENDPOINTS_FILE} for npm run keys)
  docs       ${service.baseUrl}/docs (the OpenAPI document: ${service.baseUrl}/openapi.json)
  try        curl -H "X-API-KEY: $KEY" ${service.baseUrl}/api/public/v2/requests/1
API key (X-API-KEY):
${service.apiKey}`);

let stopping = false;
function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  console.log(`\n${reason}: stopping`);
  service.stop().then(
    () => {
      releaseDataDir();
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));

// `npm start` execs this in place of its shell, so npm hands its SIGINT and SIGTERM on to it; an npm
// killed outright (SIGKILL) cannot. Notice being orphaned and stop too, so the service never outlives
// whoever started it.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('parent process exited');
}, 500).unref();
