import { PROVIDER_ENVIRONMENT } from '#shared/providers/providers.ts';
import { REPORT_ROWS_QUEUE } from '#shared/reports/run/queue.ts';
import type { JobQueueDef, RouteDef } from '../route-types.ts';

/** Runs of evaluation reports: the run route and the row queue (the run part). */
const ROWS = REPORT_ROWS_QUEUE;

export const REPORT_RUN_ROUTES: readonly RouteDef[] = [
  // Copies the report for a named run, snapshots its columns and dataset version (a big snapshot to S3),
  // starts the run on the head, queues its first message. A run with no cell completes here: its score
  // (the score code runs in the sandbox) and `report_finished`.
  {
    method: 'POST',
    path: '/reports/{report_id}/run',
    handler: 'functions/http/report-run.ts',
    table: 'write',
    bucket: 'write',
    queues: [ROWS.name],
    events: true,
    sandbox: true,
  },
];

export const REPORT_RUN_JOB_QUEUES: Readonly<Record<string, JobQueueDef>> = {
  // Fans a run out into batch messages, runs batches of rows (column executors call providers and
  // endpoints: provider keys are sealed with the master key; without a workspace key, the deployment's
  // from its provider credentials secret; CODE_EXECUTION and REGEX columns and the score code run in the
  // sandbox), reads dataset chunks and writes big cell values to S3, completes runs (`report_finished`).
  [ROWS.name]: {
    worker: 'functions/workers/report-rows.ts',
    batchSize: ROWS.batchSize,
    maxReceiveCount: ROWS.maxReceiveCount,
    timeoutSeconds: ROWS.timeoutSeconds,
    memoryMb: 1024,
    table: 'write',
    bucket: 'write',
    queues: [ROWS.name],
    events: true,
    masterKey: true,
    providerCredentials: true,
    environment: PROVIDER_ENVIRONMENT,
    sandbox: true,
    maxConcurrency: ROWS.maxConcurrency,
  },
};
