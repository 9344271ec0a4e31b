import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { MAX_DELIVERY_RECEIVES } from '#shared/webhooks/backoff.ts';
import { attemptDelivery, failAfterError } from '#shared/webhooks/delivery.ts';

/**
 * Queue `webhook-delivery`: the records of a batch are attempted at once (each waits on a receiver);
 * a record to try again, or one that threw, is reported as a batch item failure. Each record's lines
 * carry its message id.
 */
export const handler = sqsBatchHandler(
  async ({ record, receiveCount }) =>
    attemptDelivery({ body: record.body, receiptHandle: record.receiptHandle, receiveCount }),
  {
    maxReceiveCount: MAX_DELIVERY_RECEIVES,
    concurrent: true,
    label: 'Webhook delivery message',
    onLastFailure: ({ record, receiveCount }) =>
      failAfterError({ body: record.body, receiptHandle: record.receiptHandle, receiveCount }),
  },
);
