import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loggedHandler, logger, withLogKeys } from './logger.ts';

/**
 * An SQS batch handler that reports partial failures: each record is processed in its own logging
 * context (the invocation's request id, the record's message id and receive count on every line), and
 * a record that throws (or asks to come back) becomes one `batchItemFailures` entry, so only that
 * record is delivered again, never the whole batch.
 */
export interface ReceivedRecord {
  record: SQSRecord;
  /** How many times SQS has delivered this message, this delivery included. */
  receiveCount: number;
}

export interface BatchHandlerOptions {
  maxReceiveCount: number;
  /**
   * Records of a batch run at once (each mostly waits: a workflow node, a receiver); by default one
   * after another, as jobs are heavy enough on their own.
   */
  concurrent?: boolean;
  /** How log lines name a message (`Workflow node message`). */
  label?: string;
  /**
   * The last delivery of a message threw: what to settle before it goes to the dead-letter queue (a
   * failure of this step is logged, the message goes on all the same).
   */
  onLastFailure?(received: ReceivedRecord): Promise<void>;
}

/** `retry`: the record comes back (a batch item failure) without having failed (a delivery's backoff). */
export type RecordResult = 'done' | 'retry';

export function sqsBatchHandler(
  processRecord: (received: ReceivedRecord) => Promise<void> | Promise<RecordResult>,
  options: BatchHandlerOptions,
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  const label = options.label ?? 'Message';
  /** Whether the record is to be delivered again (or go on to the dead-letter queue). */
  const failed = (record: SQSRecord) => {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
    return withLogKeys(recordLogKeys(record), async () => {
      try {
        return (await processRecord({ record, receiveCount })) === 'retry';
      } catch (error) {
        // A failure SQS will deliver again is a warning; the last one, bound for the DLQ, is an error.
        if (receiveCount < options.maxReceiveCount) {
          logger.warn(`${label} failed; it will be delivered again`, { error: error as Error });
          return true;
        }
        logger.error(`${label} failed for the last time: on to the dead-letter queue`, {
          error: error as Error,
        });
        await options.onLastFailure?.({ record, receiveCount }).catch((settleError: unknown) =>
          logger.error(`${label} not settled before the dead-letter queue`, {
            error: settleError as Error,
          }),
        );
        return true;
      }
    });
  };
  return loggedHandler(async (event) => {
    let outcomes: boolean[];
    if (options.concurrent) outcomes = await Promise.all(event.Records.map(failed));
    else {
      outcomes = [];
      for (const record of event.Records) outcomes.push(await failed(record));
    }
    return {
      batchItemFailures: event.Records.filter((_, index) => outcomes[index]).map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  });
}

/** The keys on every line logged while a record is processed (its handler's own or `withLogKeys`). */
export function recordLogKeys(record: SQSRecord) {
  return {
    messageId: record.messageId,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
  };
}
