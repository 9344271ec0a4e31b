import {
  COST_RECOMPUTE_QUEUE,
  recomputeMessageSchema,
  runRecomputeStep,
} from '#shared/cost-recompute/recompute.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';

/**
 * Fixture worker of the `cost-recompute-jobs` queue: steps of two logs, and every message handled twice,
 * the second time as a redelivery (a duplicate SQS delivery, or a retry after a crash past the checkpoint).
 */
export const handler = sqsBatchHandler(
  async ({ record }) => {
    const message = recomputeMessageSchema.parse(JSON.parse(record.body));
    const limits = { maxLogs: 2, maxMs: 60_000 };
    await runRecomputeStep(message, false, limits);
    await runRecomputeStep(message, true, limits);
  },
  { maxReceiveCount: COST_RECOMPUTE_QUEUE.maxReceiveCount },
);
