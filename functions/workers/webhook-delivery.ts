import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loggedHandler, logger, withLogKeys } from '#shared/platform/logger.ts';
import { recordLogKeys } from '#shared/platform/sqs-worker.ts';
import { MAX_DELIVERY_RECEIVES } from '#shared/webhooks/backoff.ts';
import { attemptDelivery, failAfterError } from '#shared/webhooks/delivery.ts';

/**
 * Queue `webhook-delivery`: the records of a batch are attempted at once (each waits on a receiver);
 * a record to try again, or one that threw, is reported as a batch item failure. Each record's lines
 * carry its message id.
 */
export const handler = loggedHandler(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(
    event.Records.map((record) =>
      withLogKeys(recordLogKeys(record), async () => {
        const received = {
          body: record.body,
          receiptHandle: record.receiptHandle,
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        };
        try {
          const result = await attemptDelivery(received);
          return result === 'retry' ? record.messageId : undefined;
        } catch (error) {
          const last = received.receiveCount >= MAX_DELIVERY_RECEIVES;
          const keys = { error: error as Error };
          if (!last) {
            logger.warn('Webhook delivery message failed; it will be delivered again', keys);
            return record.messageId;
          }
          logger.error(
            'Webhook delivery message failed for the last time: on to the dead-letter queue',
            keys,
          );
          await failAfterError(received).catch((markError: unknown) =>
            logger.error('Could not mark the delivery failed', { error: markError as Error }),
          );
          return record.messageId;
        }
      }),
    ),
  );
  return {
    batchItemFailures: results.filter((id) => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })),
  };
});
