import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import {
  failReplayBatch,
  REPLAY_BATCH_QUEUE,
  replayBatchJobMessageSchema,
  runReplayBatch,
} from '#shared/replay/batch.ts';

/**
 * Queue `replay-batch-jobs`: a replay batch, a slice of logs at a time, handing over to a new message
 * before the function's timeout. A message that fails on its last delivery ends its batch as FAILED.
 */
export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) => {
    const deadline = Date.now() + REPLAY_BATCH_QUEUE.timeoutSeconds * 1000;
    const message = replayBatchJobMessageSchema.parse(JSON.parse(record.body));
    logger.appendKeys({ workspaceId: message.workspaceId, batchId: message.batchId });
    try {
      await runReplayBatch(message, deadline);
    } catch (error) {
      if (receiveCount >= REPLAY_BATCH_QUEUE.maxReceiveCount) {
        await failReplayBatch(
          message,
          'The batch failed repeatedly because of an internal error; please try again',
        );
      }
      throw error;
    }
  },
  { maxReceiveCount: REPLAY_BATCH_QUEUE.maxReceiveCount },
);
