import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import {
  failRunningReplay,
  finishRunningReplay,
  REPLAY_QUEUE,
  replayJobMessageSchema,
} from '#shared/replay/replay.ts';

/**
 * Queue `replay-jobs`: a replay that outlived its route's sync limit. A message that fails on its last
 * delivery ends its log as an ERROR, so that no log stays RUNNING for ever.
 */
export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) => {
    const message = replayJobMessageSchema.parse(JSON.parse(record.body));
    logger.appendKeys({ workspaceId: message.workspaceId, requestId: message.requestId });
    try {
      await finishRunningReplay(message);
    } catch (error) {
      if (receiveCount >= REPLAY_QUEUE.maxReceiveCount) {
        await failRunningReplay(message.workspaceId, message.requestId, 'the replay job failed repeatedly');
      }
      throw error;
    }
  },
  { maxReceiveCount: REPLAY_QUEUE.maxReceiveCount },
);
