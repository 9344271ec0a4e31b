import { ENV } from '#shared/platform/config.ts';
import { PROVIDER_ENVIRONMENT } from '#shared/providers/providers.ts';
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
};
