import { parseBusMessage } from '#shared/events/bus-message.ts';
import { logger } from '#shared/platform/logger.ts';
import { sqsBatchHandler } from '#shared/platform/sqs-worker.ts';
import { fanOutEvent } from '#shared/webhooks/fanout.ts';
import { WEBHOOK_QUEUE_SETTINGS } from '#shared/webhooks/queues.ts';

/** Queue `webhook-fanout` (the bus rule's target): one delivery per subscribed webhook of the event. */
export const handler = sqsBatchHandler(
  async ({ record }) => {
    const event = parseBusMessage(record.body);
    logger.appendKeys({ eventId: event.event_id });
    await fanOutEvent(event);
  },
  { maxReceiveCount: WEBHOOK_QUEUE_SETTINGS.fanout.maxReceiveCount },
);
