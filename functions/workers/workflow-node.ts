import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loggedHandler, logger, withLogKeys } from '#shared/platform/logger.ts';
import { recordLogKeys } from '#shared/platform/sqs-worker.ts';
import { WORKFLOW_NODE_QUEUE } from '#shared/workflows/engine/queue.ts';
import { defaultWorkerDeps, nodeMessageSchema, processNodeMessage } from '#shared/workflows/engine/worker.ts';

/**
 * Queue `workflow-node`: one message per ready node. The records of a batch run at once (parallel
 * branches of a run, or nodes of several runs); a record that throws is delivered again, and on its
 * last delivery its node is marked FAILED instead, so that no run waits for ever.
 */
export const handler = loggedHandler(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = await defaultWorkerDeps();
  const failed = await Promise.all(
    event.Records.map((record) => withLogKeys(recordLogKeys(record), () => processRecord(record, deps))),
  );
  return {
    batchItemFailures: failed.filter((id) => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })),
  };
});

/** One record, with its message id and receive count on every line: its message id if it is to be retried. */
async function processRecord(
  record: SQSRecord,
  deps: Awaited<ReturnType<typeof defaultWorkerDeps>>,
): Promise<string | undefined> {
  const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
  let message: ReturnType<typeof nodeMessageSchema.parse>;
  try {
    message = nodeMessageSchema.parse(JSON.parse(record.body));
  } catch (error) {
    logger.error('Workflow node message is not readable: dropped', { error: error as Error });
    return undefined;
  }
  try {
    await processNodeMessage(
      message,
      { receiveCount, maxReceiveCount: WORKFLOW_NODE_QUEUE.maxReceiveCount },
      deps,
    );
    return undefined;
  } catch (error) {
    const context = {
      executionId: message.executionId,
      node: message.node,
      error: error as Error,
    };
    if (receiveCount >= WORKFLOW_NODE_QUEUE.maxReceiveCount) {
      logger.error('Workflow node message failed for the last time: on to the dead-letter queue', context);
    } else {
      logger.warn('Workflow node message failed; it will be delivered again', context);
    }
    return record.messageId;
  }
}
