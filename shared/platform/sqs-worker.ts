import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loggedHandler, logger, withLogKeys } from './logger.ts';

/**
 * An SQS batch handler that reports partial failures: each record is processed in its own logging
 * context (the invocation's request id, the record's message id and receive count on every line), and
 * a record that throws becomes one `batchItemFailures` entry, so only that record is delivered again,
 * never the whole batch. Records run one after another: jobs are heavy enough on their own.
 */
export interface ReceivedRecord {
  record: SQSRecord;
  /** How many times SQS has delivered this message, this delivery included. */
  receiveCount: number;
}

export function sqsBatchHandler(
  processRecord: (received: ReceivedRecord) => Promise<void>,
  options: { maxReceiveCount: number },
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  return loggedHandler(async (event) => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
      await withLogKeys(recordLogKeys(record), async () => {
        try {
          await processRecord({ record, receiveCount });
        } catch (error) {
          // A failure SQS will deliver again is a warning; the last one, bound for the DLQ, is an error.
          if (receiveCount >= options.maxReceiveCount) {
            logger.error('Message failed for the last time: on to the dead-letter queue', {
              error: error as Error,
            });
          } else {
            logger.warn('Message failed; it will be delivered again', { error: error as Error });
          }
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      });
    }
    return { batchItemFailures };
  });
}

/** The keys on every line logged while a record is processed (its handler's own or `withLogKeys`). */
export function recordLogKeys(record: SQSRecord) {
  return {
    messageId: record.messageId,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
  };
}
