import { parseBusMessage } from '#shared/events/bus-message.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { fanOutEvent } from '#shared/webhooks/fanout.ts';
import { WEBHOOK_QUEUE_SETTINGS } from '#shared/webhooks/queues.ts';

/** Queue `webhook-fanout` (the bus rule's target): one delivery per subscribed webhook of the event. */
export const handler = sqsBatchHandler(
  async ({ record }) => {
    await fanOutEvent(parseBusMessage(record.body));
  },
  { maxReceiveCount: WEBHOOK_QUEUE_SETTINGS.fanout.maxReceiveCount },
);
