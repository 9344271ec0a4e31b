import { ENDPOINTS_FILE, startLocalService } from './service.ts';

/** `npm start`: the whole service locally, on its embedded emulators unless endpoints are given. */
const dataDir = process.env.PROMPTOPS_DATA_DIR || '.data';

const service = await startLocalService({
  port: Number(process.env.PORT || 3000),
  host: process.env.HOST || '127.0.0.1',
  dataDir,
  apiKey: process.env.PROMPTOPS_API_KEY || undefined,
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  s3Endpoint: process.env.S3_ENDPOINT || undefined,
  tableName: process.env.TABLE_NAME || undefined,
  bucketName: process.env.BUCKET_NAME || undefined,
  onEvent: (event) =>
    console.log(JSON.stringify({ level: 'INFO', message: 'event', bus: event.bus, ...event.detail })),
});

console.log(`promptops is listening on ${service.baseUrl}
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
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));

// `npm start` runs this under `sh -c`; a SIGTERM to npm ends npm and the shell but not this process.
// Notice being orphaned and stop too, so the service never outlives whoever started it.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('parent process exited');
}, 500).unref();
