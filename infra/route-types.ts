import type { EventType } from '#shared/events/catalogue.ts';
import type { RouteAuth } from '#shared/platform/auth-context.ts';

/** The shapes of the rows of routes.ts: routes, job queues, bus rules and schedules. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a function may touch, as every row that makes a function declares it: the stack grants exactly
 * this, and the local runtime refuses anything else.
 */
export interface ResourceAccess {
  /** Table access: read-only rows get read-only grants; none for a function that never reads it. */
  table?: 'read' | 'write';
  bucket?: 'read' | 'write';
  /** Job queues (names from JOB_QUEUES) the function sends to. */
  queues?: readonly string[];
  /** May put events on the project bus. */
  events?: boolean;
  /** May read the master key (webhook secrets, provider credentials). */
  masterKey?: boolean;
  /**
   * Runs user code in the sandbox (shared/sandbox: CODE_EXECUTION, REGEX nodes): the function's asset
   * then carries the sandbox's worker thread and QuickJS WebAssembly beside its bundle. Locally, a
   * function without it that calls the sandbox fails, as it would in AWS.
   */
  sandbox?: boolean;
  /**
   * Not an API operation but public files, with no gateway authorizer (they hold no data) and left out
   * of the OpenAPI document; what travels in the function's asset (infra/bundling.ts) says which:
   * `dashboard`, the web dashboard's built `ui/dist` (infra/routes/ui.ts); `openapi`, the published
   * OpenAPI document (infra/routes/openapi.ts).
   */
  site?: 'dashboard' | 'openapi';
  /**
   * May read the deployment's provider credentials secret (its OPENAI_API_KEY / ANTHROPIC_API_KEY, for
   * workspaces without a provider key of their own): rows whose function calls an LLM provider.
   */
  providerCredentials?: boolean;
}

/** Settings a row's function reads from its environment. */
export interface FunctionSettings {
  /**
   * Settings the function reads from its environment, with the values the stack gives them; a
   * deployment may override a declared one (PromptopsStackProps). Locally the process environment
   * applies instead, as for every setting.
   */
  environment?: Readonly<Record<string, string>>;
}

export interface JobQueueDef extends ResourceAccess, FunctionSettings {
  /** Worker handler file (exports `handler`), relative to the repository root. */
  worker: string;
  /** Messages a worker receives per invocation. */
  batchSize: number;
  /** Deliveries before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Worker Lambda timeout; the queue's visibility timeout is six times this (AWS guidance). */
  timeoutSeconds: number;
  memoryMb: number;
  /**
   * Batches of this queue processed at once (the event source mapping's maximum concurrency in AWS,
   * at least 2 there; the local queue runner's parallel batches). Default 1 locally, unbounded in AWS.
   */
  maxConcurrency?: number;
}

/**
 * A rule on the project bus: events of the given types (all of the catalogue when absent) go to a job
 * queue, whose worker receives each as an EventBridge event (`detail` = the envelope and its id).
 */
export interface EventRuleDef {
  /** The JOB_QUEUES name of the target queue. */
  queue: string;
  eventTypes?: readonly EventType[];
  description: string;
}

/**
 * A function run on a timer: an EventBridge schedule in AWS; locally once at start-up and then every
 * `everyMinutes` (or the local service's own interval).
 */
export interface ScheduleDef extends ResourceAccess, FunctionSettings {
  handler: string;
  everyMinutes: number;
  description: string;
  memoryMb?: number;
  timeoutSeconds?: number;
}

export interface RouteDef extends ResourceAccess, FunctionSettings {
  method: HttpMethod;
  /** API Gateway path template, e.g. `/prompt-templates/{identifier}`. */
  path: string;
  /** Handler file (exports `handler`), relative to the repository root. */
  handler: string;
  /**
   * Where the API key is (default `header`). `body`: the JSON body's `api_key`, which the gateway's
   * authorizer cannot read, so the route has no gateway authorizer and its handler checks the key (its
   * `httpRoute` definition says `auth: 'body'` too).
   */
  auth?: RouteAuth;
  memoryMb?: number;
  timeoutSeconds?: number;
}

/**
 * A consumer of the table's change feed (shared/platform/change-feed.ts): in AWS a Lambda on the
 * table's DynamoDB stream, locally fed by the runtime's capture of the table's writes. Failed changes
 * are reported per batch (ReportBatchItemFailures): the batch is retried from the first one.
 */
export interface ChangeConsumerDef extends ResourceAccess, FunctionSettings {
  /** Handler file (exports `handler`, taking a DynamoDBStreamEvent), relative to the repository root. */
  handler: string;
  /** Only changes of items whose sort key is one of these: the item kinds it consumes (`RL`: request logs). */
  sortKeys: readonly string[];
  /** Changes per invocation, at most. */
  batchSize: number;
  /** Longest wait to fill a batch, seconds (0: deliver what is there). */
  batchingWindowSeconds: number;
  /** Retries of a failing batch before its changes go to the consumer's dead-letter queue. */
  maxRetries: number;
  /** Split a failing batch in two and retry each half (finds the change that fails). */
  bisectOnError: boolean;
  timeoutSeconds: number;
  memoryMb: number;
}
