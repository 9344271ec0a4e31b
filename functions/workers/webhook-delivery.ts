import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/logger.ts';
import { attemptDelivery } from '#shared/webhooks/delivery.ts';

/**
 * Queue `webhook-delivery`: the records of a batch are attempted at once (each waits on a receiver);
 * a record to try again, or one that threw, is reported as a batch item failure.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const result = await attemptDelivery({
          body: record.body,
          receiptHandle: record.receiptHandle,
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        });
        return result === 'retry' ? record.messageId : undefined;
      } catch (error) {
        logger.warn('Webhook delivery message failed; it will be delivered again', {
          messageId: record.messageId,
          error: error as Error,
        });
        return record.messageId;
      }
    }),
  );
  return {
    batchItemFailures: results.filter((id) => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })),
  };
}
