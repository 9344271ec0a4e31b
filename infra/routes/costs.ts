import { COST_RECOMPUTE_QUEUE } from '#shared/cost-recompute/recompute.ts';
import type { JobQueueDef, RouteDef } from '../route-types.ts';

/** Costs: the workspace's model price overrides and the recompute of stored logs' costs (docs/cost.md). */
const PRICES = '/api/public/v2/model-prices';
const RECOMPUTE = '/api/public/v2/requests/cost-recompute';

export const COST_ROUTES: readonly RouteDef[] = [
  { method: 'GET', path: PRICES, handler: 'functions/http/model-prices-list.ts', table: 'read' },
  { method: 'GET', path: `${PRICES}/{model}`, handler: 'functions/http/model-price-get.ts', table: 'read' },
  { method: 'PUT', path: `${PRICES}/{model}`, handler: 'functions/http/model-price-put.ts', table: 'write' },
  {
    method: 'DELETE',
    path: `${PRICES}/{model}`,
    handler: 'functions/http/model-price-delete.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: RECOMPUTE,
    handler: 'functions/http/cost-recompute-start.ts',
    table: 'write',
    queues: [COST_RECOMPUTE_QUEUE.name],
  },
  {
    method: 'GET',
    path: `${RECOMPUTE}/{job_id}`,
    handler: 'functions/http/cost-recompute-get.ts',
    table: 'read',
  },
];

export const COST_JOB_QUEUES: Record<string, JobQueueDef> = {
  [COST_RECOMPUTE_QUEUE.name]: {
    worker: 'functions/workers/cost-recompute-job.ts',
    batchSize: 1,
    maxReceiveCount: COST_RECOMPUTE_QUEUE.maxReceiveCount,
    timeoutSeconds: COST_RECOMPUTE_QUEUE.timeoutSeconds,
    // Reads and re-prices many logs (JSON parsing): memory buys CPU.
    memoryMb: 1024,
    table: 'write',
    // Large logs live in S3: read, and rewritten under a new key.
    bucket: 'write',
    queues: [COST_RECOMPUTE_QUEUE.name],
  },
};
