import {
  COST_RECOMPUTE_QUEUE,
  failRecompute,
  recomputeMessageSchema,
  runRecomputeStep,
} from '#shared/cost-recompute/recompute.ts';
import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';

/**
 * Queue `cost-recompute-jobs`: one step of a cost recompute per message (shared/cost-recompute/recompute.ts). A
 * step that fails is delivered again; on its last delivery the job is recorded as failed and the
 * workspace may start another.
 */
const { maxReceiveCount } = COST_RECOMPUTE_QUEUE;

export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) => {
    const message = recomputeMessageSchema.parse(JSON.parse(record.body));
    logger.appendKeys({ workspaceId: message.workspaceId, jobId: message.jobId, step: message.step });
    try {
      await runRecomputeStep(message, receiveCount > 1);
    } catch (error) {
      if (receiveCount >= maxReceiveCount)
        await failRecompute(
          message,
          'The job failed repeatedly because of an internal error; please try again',
        );
      throw error;
    }
  },
  { maxReceiveCount },
);
