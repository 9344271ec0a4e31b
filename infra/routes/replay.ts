import { DATASET_QUEUES } from '#shared/datasets/jobs.ts';
import { ENV } from '#shared/platform/config.ts';
import { PROVIDER_ENVIRONMENT } from '#shared/providers/providers.ts';
import { DEFAULT_BATCH_CONCURRENCY, REPLAY_BATCH_QUEUE } from '#shared/replay/batch.ts';
import { DEFAULT_REPLAY_SYNC_LIMIT_MS, REPLAY_QUEUE } from '#shared/replay/replay.ts';
import { DEFAULT_REPLAY_MAX_TOKENS } from '#shared/replay/request.ts';
import type { JobQueueDef, RouteDef } from '../route-types.ts';

/**
 * Replays of request logs: the replay route calls the provider itself (up to its sync limit, then hands
 * over to the replay job), so both carry what a provider call needs: the master key (workspace provider
 * keys are sealed with it), the deployment's provider credentials and base URLs.
 */
const REPLAY_ENVIRONMENT = {
  ...PROVIDER_ENVIRONMENT,
  [ENV.replaySyncLimitMs]: String(DEFAULT_REPLAY_SYNC_LIMIT_MS),
  [ENV.replayMaxTokens]: String(DEFAULT_REPLAY_MAX_TOKENS),
};

export const REPLAY_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/public/v2/requests/{request_id}/replay',
    handler: 'functions/http/request-replay.ts',
    table: 'write',
    bucket: 'write', // reads a large original from S3, writes a large replay there
    queues: [REPLAY_QUEUE.name],
    masterKey: true,
    providerCredentials: true,
    environment: REPLAY_ENVIRONMENT,
    // API Gateway's integration limit: the sync limit (25 s) plus the writes.
    timeoutSeconds: 29,
  },
  {
    // Creates the batch's dataset group and item, stores its parameters, sends its job.
    method: 'POST',
    path: '/api/public/v2/requests/replay-batch',
    handler: 'functions/http/request-replay-batch.ts',
    table: 'write',
    bucket: 'write',
    queues: [REPLAY_BATCH_QUEUE.name],
  },
  {
    method: 'GET',
    path: '/api/public/v2/requests/replay-batch/{batch_id}',
    handler: 'functions/http/request-replay-batch-get.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/api/public/v2/requests/{request_id}/replays',
    handler: 'functions/http/request-replays.ts',
    table: 'read',
    bucket: 'read',
  },
];

export const REPLAY_JOB_QUEUES: Readonly<Record<string, JobQueueDef>> = {
  [REPLAY_QUEUE.name]: {
    worker: 'functions/workers/replay-job.ts',
    batchSize: 1,
    maxReceiveCount: REPLAY_QUEUE.maxReceiveCount,
    timeoutSeconds: REPLAY_QUEUE.timeoutSeconds,
    memoryMb: 512,
    table: 'write',
    bucket: 'write',
    masterKey: true,
    providerCredentials: true,
    environment: REPLAY_ENVIRONMENT,
  },
  // One batch per workspace at a time (a lock item), a slice of logs per pass; the rows become a dataset
  // version through the from-file job.
  [REPLAY_BATCH_QUEUE.name]: {
    worker: 'functions/workers/replay-batch-job.ts',
    batchSize: 1,
    maxReceiveCount: REPLAY_BATCH_QUEUE.maxReceiveCount,
    timeoutSeconds: REPLAY_BATCH_QUEUE.timeoutSeconds,
    memoryMb: 1024,
    table: 'write',
    bucket: 'write',
    queues: [REPLAY_BATCH_QUEUE.name, DATASET_QUEUES.file.name],
    masterKey: true,
    providerCredentials: true,
    environment: { ...REPLAY_ENVIRONMENT, [ENV.replayBatchConcurrency]: String(DEFAULT_BATCH_CONCURRENCY) },
  },
};
