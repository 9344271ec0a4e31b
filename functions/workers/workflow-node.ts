import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { type NodeMessage, nodeMessageSchema, WORKFLOW_NODE_QUEUE } from '#shared/workflows/engine/queue.ts';
import { defaultWorkerDeps, processNodeMessage } from '#shared/workflows/engine/worker.ts';

/**
 * Queue `workflow-node`: one message per ready node. The records of a batch run at once (parallel
 * branches of a run, or nodes of several runs); a record that throws is delivered again, and on its
 * last delivery its node is marked FAILED instead, so that no run waits for ever.
 */
export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) => {
    let message: NodeMessage;
    try {
      message = nodeMessageSchema.parse(JSON.parse(record.body));
    } catch (error) {
      logger.error('Workflow node message is not readable: dropped', { error: error as Error });
      return;
    }
    logger.appendKeys({ executionId: message.executionId, node: message.node });
    await processNodeMessage(
      message,
      { receiveCount, maxReceiveCount: WORKFLOW_NODE_QUEUE.maxReceiveCount },
      await defaultWorkerDeps(),
    );
  },
  { maxReceiveCount: WORKFLOW_NODE_QUEUE.maxReceiveCount, concurrent: true, label: 'Workflow node message' },
);
