import { AsyncLocalStorage } from 'node:async_hooks';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HttpResponse } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { setSandboxGuard } from '#shared/sandbox/sandbox.ts';
import type { ResourceAccess } from '../route-types.ts';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../table-actions.ts';

/**
 * The local runtime's stand-in for IAM: each function runs with the grants its row declares (route,
 * worker, schedule, the authorizer), and an AWS call those grants do not cover fails as it fails in AWS,
 * with an AccessDenied error from the SDK call. A wrong row is caught by the end-to-end tests, not after
 * a deploy.
 *
 * The grants of the function being invoked live in an AsyncLocalStorage entered around each call (the
 * gateway, the queue runner, the schedule runner); the check sits at the one place every AWS SDK v3
 * client sends through, `NodeHttpHandler.prototype.handle`. Code outside any invocation (the runtime's
 * own seeding and set-up, the tests' helpers) is not restricted.
 *
 * The grants are the row's own `ResourceAccess` (infra/route-types.ts), the type the stack grants from:
 * one declaration of what a function may touch.
 */
export type Grants = ResourceAccess;

/** The resources of one local service, which the grants are on (as IAM grants are on ARNs). */
export interface GrantedResources {
  tableName: string;
  /** Host and port of the S3 endpoint: calls there are S3 calls. */
  s3Host: string;
  /** The service's bucket (path-style, the first segment of the path): another bucket is refused. */
  bucketName: string;
  eventBusName: string;
  masterKeySecretId: string;
  providerCredentialsSecretId: string;
}

export interface Invocation {
  /** The function's name as its log shows it, e.g. `GET /prompt-templates/{identifier}`. */
  functionName: string;
  grants: Grants;
  /** A queue worker consumes its own queue (receive, delete, change visibility), as its event source does. */
  ownQueue?: string;
  resources: GrantedResources;
  /** Told of each refused call (the runtime logs it: the function itself may answer a bare 500). */
  onDenied?(message: string): void;
  /**
   * Told of each allowed call before it is sent; a promise returned holds the call until it settles (the
   * tests count the table before a refused request's first write).
   */
  beforeCall?(action: string): Promise<unknown> | undefined;
}

/** The grants of the API key authorizer (the stack's: it reads keys, writes nothing). */
export const AUTHORIZER_GRANTS: Grants = { table: 'read' };

/**
 * The invocation whose grants apply, one store per process on the global object: a test worker evaluates
 * this module afresh for each file, while the SDK's handler it patches (node_modules) stays loaded, so
 * the handler is patched once and every evaluation runs its invocations in the same store.
 */
const STORAGE = Symbol.for('promptops.grantCheckStorage');
const processStore = globalThis as { [STORAGE]?: AsyncLocalStorage<Invocation> };
processStore[STORAGE] ??= new AsyncLocalStorage<Invocation>();
const storage = processStore[STORAGE];
/** Marks the patched handler. */
const PATCHED = Symbol.for('promptops.grantCheckPatched');

/** Runs `call` (a handler invocation) with the function's grants enforced on its AWS calls. */
export function invokeWith<T>(invocation: Invocation, call: () => T): T {
  installGrantCheck();
  return storage.run(invocation, call);
}

/** The parts of an SDK request the check reads. */
export interface SdkRequest {
  method: string;
  hostname: string;
  port?: number;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface AwsAction {
  /** IAM action, e.g. `dynamodb:PutItem`. */
  action: string;
  /** Why the grants do not cover it, or undefined when they do. */
  missing?: string;
}

const READ_ACTIONS: readonly string[] = TABLE_READ_ACTIONS;
const WRITE_ACTIONS: readonly string[] = TABLE_WRITE_ACTIONS;
/** What a queue's event source mapping lets its worker do on that queue. */
const CONSUMER_ACTIONS = new Set([
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
  'GetQueueAttributes',
]);

/** The IAM action an SDK request performs, and what the invocation lacks to perform it. */
export function checkRequest(request: SdkRequest, invocation: Invocation): AwsAction {
  const { grants, resources } = invocation;
  const target = headerOf(request, 'x-amz-target');
  const [prefix, operation = ''] = target.split('.');
  const input = target ? parseBody(request.body) : {};
  switch (prefix) {
    case 'DynamoDB_20120810': {
      const action = `dynamodb:${operation}`;
      if (!grants.table) return { action, missing: 'its row grants no table access' };
      const allowed = grants.table === 'write' ? WRITE_ACTIONS : READ_ACTIONS;
      if (!allowed.includes(action)) {
        const needed = READ_ACTIONS.includes(action)
          ? "table: 'read'"
          : WRITE_ACTIONS.includes(action)
            ? "table: 'write'"
            : 'a grant no row can declare (the stack grants no Scan or transactions)';
        return { action, missing: `its row grants table: '${grants.table}', and ${action} needs ${needed}` };
      }
      const tables = tablesOf(input);
      const other = tables.find((table) => table !== resources.tableName);
      if (other !== undefined) return { action, missing: `table ${other} is not the service's table` };
      return { action };
    }
    case 'AmazonSQS': {
      const action = `sqs:${operation}`;
      const queue =
        String(input.QueueUrl ?? '')
          .split('/')
          .pop() ?? '';
      if (operation === 'SendMessage' || operation === 'SendMessageBatch') {
        if (grants.queues?.includes(queue)) return { action };
        return { action, missing: `its row does not list queue ${queue} in queues` };
      }
      if (CONSUMER_ACTIONS.has(operation) && invocation.ownQueue === queue) return { action };
      return { action, missing: `only the worker of queue ${queue} may ${operation} on it` };
    }
    case 'AWSEvents': {
      const action = `events:${operation}`;
      if (operation !== 'PutEvents') return { action, missing: 'no row grants it' };
      if (!grants.events) return { action, missing: 'its row does not declare events: true' };
      const entries = Array.isArray(input.Entries) ? (input.Entries as { EventBusName?: string }[]) : [];
      const other = entries.find((entry) => busName(entry.EventBusName) !== resources.eventBusName);
      if (other) return { action, missing: `bus ${other.EventBusName ?? 'default'} is not the project bus` };
      return { action };
    }
    case 'secretsmanager': {
      const action = `secretsmanager:${operation}`;
      if (operation !== 'GetSecretValue') return { action, missing: 'no row grants it' };
      // Each secret is granted by its own flag, as each function's role is granted each secret apart.
      const id = String(input.SecretId ?? '');
      const names = (name: string) => id === name || id.includes(`:secret:${name}`);
      const secret = names(resources.masterKeySecretId)
        ? { flag: 'masterKey' as const, what: 'the master key' }
        : names(resources.providerCredentialsSecretId)
          ? { flag: 'providerCredentials' as const, what: 'the provider credentials' }
          : undefined;
      if (!secret) return { action, missing: `secret ${id} is not one of the service's secrets` };
      if (!grants[secret.flag]) {
        return { action, missing: `its row does not declare ${secret.flag}: true (${secret.what})` };
      }
      return { action };
    }
  }
  if (!target && hostOf(request) === resources.s3Host) {
    const method = request.method.toUpperCase();
    const read = method === 'GET' || method === 'HEAD';
    const action = `s3:${read ? (hasKey(request.path) ? 'GetObject' : 'ListBucket') : method === 'DELETE' ? 'DeleteObject' : 'PutObject'}`;
    const bucket = request.path.split('?')[0]?.split('/').filter(Boolean)[0] ?? '';
    if (bucket !== resources.bucketName) {
      return { action, missing: `bucket ${bucket || '(none)'} is not the service's bucket` };
    }
    if (read ? grants.bucket : grants.bucket === 'write') return { action };
    return {
      action,
      missing: `its row grants ${grants.bucket ? `bucket: '${grants.bucket}'` : 'no bucket access'}, and ${action} needs bucket: '${read ? 'read' : 'write'}'`,
    };
  }
  return {
    action: target || `${request.method} ${hostOf(request)}${request.path}`,
    missing: 'no row grants this call',
  };
}

/** The answer AWS gives a call IAM refuses, in the call's protocol: the SDK turns it into its error. */
function deniedResponse(request: SdkRequest, message: string): HttpResponse {
  const json = Boolean(headerOf(request, 'x-amz-target'));
  const body = json
    ? JSON.stringify({ __type: 'AccessDeniedException', message })
    : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${escapeXml(message)}</Message><RequestId>local</RequestId></Error>`;
  return new HttpResponse({
    statusCode: json ? 400 : 403,
    headers: {
      'content-type': json ? 'application/x-amz-json-1.0' : 'application/xml',
      'content-length': String(Buffer.byteLength(body)),
      'x-amzn-errortype': 'AccessDeniedException',
      'x-amzn-requestid': 'local',
    },
    body: Readable.from([Buffer.from(body)]),
  });
}

let installed = false;

/**
 * Patches the SDK's HTTP handler once per process (only the local runtime calls this), and guards this
 * evaluation's sandbox module.
 */
export function installGrantCheck(): void {
  if (installed) return;
  installed = true;
  // Every SDK client must send through this very class, or a call would escape the check: one copy of
  // @smithy/node-http-handler must serve them all.
  const probe = new DynamoDBClient({ region: 'us-east-1' });
  const handler = probe.config.requestHandler;
  probe.destroy();
  if (!(handler instanceof NodeHttpHandler)) {
    throw new Error('The AWS SDK clients do not use the @smithy/node-http-handler the grant check patches');
  }
  // Not an AWS call, but a grant all the same: a function whose row lacks `sandbox: true` is bundled
  // without the sandbox's worker thread and WebAssembly, so its runs would fail in AWS.
  setSandboxGuard(() => {
    const invocation = storage.getStore();
    if (!invocation || invocation.grants.sandbox) return;
    const message = `${invocation.functionName} may not run the sandbox: its row does not declare sandbox: true`;
    invocation.onDenied?.(message);
    throw new Error(message);
  });
  const original = NodeHttpHandler.prototype.handle as typeof NodeHttpHandler.prototype.handle & {
    [PATCHED]?: true;
  };
  if (original[PATCHED]) return;
  NodeHttpHandler.prototype.handle = function handle(
    this: NodeHttpHandler,
    request: Parameters<typeof original>[0],
    options?: Parameters<typeof original>[1],
  ) {
    const invocation = storage.getStore();
    if (invocation) {
      const { action, missing } = checkRequest(request, invocation);
      if (missing) {
        const message = `User: ${invocation.functionName} is not authorized to perform: ${action} because ${missing}`;
        invocation.onDenied?.(message);
        return Promise.resolve({ response: deniedResponse(request, message) });
      }
      const held = invocation.beforeCall?.(action);
      if (held) return held.then(() => original.call(this, request, options));
    }
    return original.call(this, request, options);
  } as typeof original;
  (NodeHttpHandler.prototype.handle as typeof original)[PATCHED] = true;
}

function headerOf(request: SdkRequest, name: string): string {
  for (const [header, value] of Object.entries(request.headers))
    if (header.toLowerCase() === name) return value;
  return '';
}

function hostOf(request: SdkRequest): string {
  return request.port ? `${request.hostname}:${request.port}` : request.hostname;
}

function parseBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return {};
  try {
    // Decoded from its bytes: the SDK's JSON body warns when read through its string methods.
    const text =
      typeof body === 'string'
        ? body
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Tables a DynamoDB call names: `TableName`, or the keys of a batch's `RequestItems`. */
function tablesOf(input: Record<string, unknown>): string[] {
  if (typeof input.TableName === 'string') return [input.TableName];
  if (input.RequestItems && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems);
  return [];
}

function busName(bus: string | undefined): string {
  const name = bus ?? 'default';
  return name.startsWith('arn:') ? (name.split('/').pop() ?? name) : name;
}

/** Path-style S3 (`/bucket/key`): a key follows the bucket. */
function hasKey(path: string): boolean {
  return path.split('?')[0]?.split('/').filter(Boolean).length !== 1;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
