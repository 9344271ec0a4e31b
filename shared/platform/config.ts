/**
 * Names of the environment variables the functions read, spelled once. The CDK stack sets them on each
 * function and the local runtime sets them on its own process; nothing else differs between the two.
 */
export const ENV = {
  tableName: 'TABLE_NAME',
  bucketName: 'BUCKET_NAME',
  eventBusName: 'EVENT_BUS_NAME',
  /** Id (ARN in AWS) of the Secrets Manager secret holding the master key. */
  masterKeySecretId: 'MASTER_KEY_SECRET_ID',
  /** Optional endpoint overrides (emulators). Unset in AWS. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  s3Endpoint: 'S3_ENDPOINT',
  sqsEndpoint: 'SQS_ENDPOINT',
  eventsEndpoint: 'EVENTS_ENDPOINT',
  secretsEndpoint: 'SECRETS_ENDPOINT',
  /**
   * The origin of the bucket's presigned URLs (`https://<bucket>.s3.<region>.amazonaws.com` in AWS, the
   * S3 emulator's locally): the dashboard's CSP lets the page PUT a file there (connect-src).
   */
  uploadOrigin: 'UPLOAD_ORIGIN',
  /**
   * Comma list of `host` or `host:port` the outbound client may reach although their address is refused
   * (loopback, private, ...), and over plain http. Empty by default, in AWS and locally.
   */
  outboundAllowedHosts: 'OUTBOUND_ALLOWED_HOSTS',
  /** Timeout in ms of one outbound request (connect + whole answer). Default 15 000. */
  outboundTimeoutMs: 'OUTBOUND_TIMEOUT_MS',
  /**
   * The deployment's own LLM provider credentials, used by PROMPT_TEMPLATE and LLM_ASSERTION nodes of a
   * workspace that set no provider key of its own. Unset: such a node fails with PROVIDER_AUTH_ERROR.
   */
  openaiApiKey: 'OPENAI_API_KEY',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  /**
   * Id (ARN in AWS) of the Secrets Manager secret holding the deployment's provider keys, a JSON object
   * `{"OPENAI_API_KEY": "...", "ANTHROPIC_API_KEY": "..."}`: read when the variable of the key itself is
   * unset (how the stack passes keys, which never go in a function's environment).
   */
  providerCredentialsSecretId: 'PROVIDER_CREDENTIALS_SECRET_ID',
  /**
   * Base URLs of the deployment's providers (default https://api.openai.com/v1 and
   * https://api.anthropic.com): operator configuration, trusted, so not filtered by the outbound guard.
   */
  openaiBaseUrl: 'OPENAI_BASE_URL',
  anthropicBaseUrl: 'ANTHROPIC_BASE_URL',
  /** Longest wait in ms for one LLM call (bounded further by the node's deadline). Default 120 000. */
  providerTimeoutMs: 'PROVIDER_TIMEOUT_MS',
  /**
   * Replays (shared/replay/): how long the replay route waits for the provider before answering 202 and
   * going on as a job (default 25 000, under API Gateway's 29 s); the highest max-tokens a replay may
   * ask for (default 32 768); provider calls a replay batch makes at once per workspace (default 4).
   */
  replaySyncLimitMs: 'REPLAY_SYNC_LIMIT_MS',
  replayMaxTokens: 'REPLAY_MAX_TOKENS',
  replayBatchConcurrency: 'REPLAY_BATCH_CONCURRENCY',
} as const;

/** The env var holding the URL of a job queue, e.g. QUEUE_URL_DATASET_FILE_JOBS. */
export function queueUrlEnv(queue: string): string {
  return `QUEUE_URL_${queue.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/** Seconds API Gateway (and the local gateway) cache an authorizer decision per key. */
export const AUTHORIZER_CACHE_TTL_SECONDS = 300;

/**
 * Lambda's synchronous invoke payload limit, for the request (the whole proxy event, in which the body is
 * an escaped JSON string) and for the response alike. No request body larger than this can reach a
 * function, so it is also the body ceiling.
 */
export const LAMBDA_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;
export const MAX_REQUEST_BODY_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES;

/**
 * How deep client JSON may nest: a request body, or one row of a dataset file. Generous for real
 * payloads (JSON schemas, tool definitions), and far below the few thousand levels at which
 * JSON.stringify runs out of stack when the value is stored.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * A job queue's visibility timeout, in timeouts of its worker (AWS guidance for Lambda consumers): the
 * stack sets it, and a job's lease counts with it.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/**
 * Media types API Gateway hands over as bytes (base64, `isBase64Encoded: true`) instead of as text, in
 * requests by their Content-Type and in answers when the client's Accept header names them (the stack's
 * `binaryMediaTypes`; the local gateway does the same). Multipart uploads, ZIP downloads, OTLP protobuf. Not the
 * any-type wildcard: every JSON body would then reach Lambda base64, a third larger against its 6 MB
 * payload limit (docs/api.md, "Multipart bodies and binary answers").
 */
export const BINARY_MEDIA_TYPES: readonly string[] = [
  'multipart/form-data',
  'application/zip',
  // OTLP/HTTP protobuf exports (POST /v1/traces).
  'application/x-protobuf',
  // The dashboard's page and stylesheet, gzipped (shared/dashboard/site.ts): a browser asks for them with
  // these first in Accept, so API Gateway passes the compressed bytes through.
  'text/html',
  'text/css',
];
