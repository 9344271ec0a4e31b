import { PROVIDER_ENVIRONMENT } from '#shared/providers/providers.ts';
import { WORKFLOW_NODE_QUEUE } from '#shared/workflows/engine/queue.ts';
import type { JobQueueDef, ResourceAccess, RouteDef, ScheduleDef } from '../route-types.ts';

/** Runs of workflows: the run and results routes, the node queue and the watchdog (the engine part). */
const NODE = WORKFLOW_NODE_QUEUE;
/** Where the run callback is delivered (the webhook delivery pipeline). */
const CALLBACK_QUEUE = 'webhook-delivery';

export const WORKFLOW_RUN_ROUTES: readonly RouteDef[] = [
  // Writes the execution (large input variables to S3), queues its root nodes; derives the callback's
  // signing secret with the master key.
  {
    method: 'POST',
    path: '/workflows/{workflow_name}/run',
    handler: 'functions/http/workflow-run.ts',
    table: 'write',
    bucket: 'write',
    queues: [NODE.name],
    masterKey: true,
  },
  {
    method: 'GET',
    path: '/workflows/{workflow_name}/runs',
    handler: 'functions/http/workflow-runs-list.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/workflow-version-execution-results',
    handler: 'functions/http/workflow-execution-results.ts',
    table: 'read',
    bucket: 'read',
  },
  // Signs a short-lived token for one run's updates (WebSocket) with a key derived from the master key.
  {
    method: 'POST',
    path: '/ws-token-request-library',
    handler: 'functions/http/ws-token-request.ts',
    table: 'read',
    masterKey: true,
  },
];

/**
 * The run updates' WebSocket endpoint (`/connection/websocket`, served by the local runtime; see
 * docs/deployment.md for AWS): verifies tokens with the master key's derived key, and reads a finished
 * run (large node values in S3) for a subscriber that comes late.
 */
export const RUN_UPDATES_SOCKET_ACCESS: ResourceAccess = { table: 'read', bucket: 'read', masterKey: true };

export const WORKFLOW_JOB_QUEUES: Readonly<Record<string, JobQueueDef>> = {
  // Runs nodes (executors call providers and endpoints: provider keys are sealed with the master key;
  // without a workspace key, the deployment's from its provider credentials secret; CODE_EXECUTION and
  // REGEX nodes run in the sandbox), queues the next ones, and reports a finished run (event, callback).
  // Provider base URLs and timeout as the deployment sets them.
  [NODE.name]: {
    worker: 'functions/workers/workflow-node.ts',
    batchSize: NODE.batchSize,
    maxReceiveCount: NODE.maxReceiveCount,
    timeoutSeconds: NODE.timeoutSeconds,
    memoryMb: 1024,
    table: 'write',
    bucket: 'write',
    queues: [NODE.name, CALLBACK_QUEUE],
    events: true,
    masterKey: true,
    providerCredentials: true,
    environment: PROVIDER_ENVIRONMENT,
    sandbox: true,
    maxConcurrency: NODE.maxConcurrency,
  },
};

export const WORKFLOW_SCHEDULES: Readonly<Record<string, ScheduleDef>> = {
  'workflow-watchdog': {
    handler: 'functions/scheduled/workflow-watchdog.ts',
    everyMinutes: 2,
    description: 'moves unfinished workflow runs on: lost messages, expired leases, runs past their deadline',
    table: 'write',
    bucket: 'read',
    queues: [NODE.name, CALLBACK_QUEUE],
    events: true,
    masterKey: true,
    timeoutSeconds: 300,
  },
};
