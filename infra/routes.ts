/**
 * The route table: the single source of truth for the HTTP API. The CDK stack builds one Lambda per
 * row and the local gateway serves the same rows. Adding an endpoint = one handler file + one row here.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The job queues and the worker each one feeds. */
export const JOB_QUEUES = {} as const satisfies Record<string, JobQueueDef>;
export type JobQueueName = keyof typeof JOB_QUEUES;

export interface JobQueueDef {
  /** Worker handler file (exports `handler`), relative to the repository root. */
  worker: string;
  /** Messages a worker receives per invocation. */
  batchSize: number;
  /** Deliveries before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Worker Lambda timeout; the queue's visibility timeout is six times this (AWS guidance). */
  timeoutSeconds: number;
  memoryMb: number;
  table: 'read' | 'write';
  bucket?: 'read' | 'write';
  /** Other job queues this worker sends to. */
  queues?: readonly JobQueueName[];
  events?: boolean;
}

export interface RouteDef {
  method: HttpMethod;
  /** API Gateway path template, e.g. `/prompt-templates/{identifier}`. */
  path: string;
  /** Handler file (exports `handler`), relative to the repository root. */
  handler: string;
  /** Table access the function is granted: read-only routes get read-only grants. */
  table: 'read' | 'write';
  bucket?: 'read' | 'write';
  queues?: readonly JobQueueName[];
  /** May put events on the project bus. */
  events?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
}

export const ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/log-request',
    handler: 'functions/http/log-request.ts',
    table: 'write',
    bucket: 'write',
  },
  {
    method: 'GET',
    path: '/api/public/v2/requests/{request_id}',
    handler: 'functions/http/get-request.ts',
    table: 'read',
    bucket: 'read',
  },
];

export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';
