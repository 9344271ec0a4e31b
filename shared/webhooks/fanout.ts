import { type BusEventDetail, envelopeOf } from '#shared/events/bus-message.ts';
import { acknowledgeEvent } from '#shared/events/store.ts';
import { enqueueDelivery, newDelivery } from './deliveries.ts';
import { listWebhooks, subscribesTo } from './repository.ts';

/**
 * Queue `webhook-fanout` (fed by the bus rule): one delivery per active webhook of the event's
 * workspace subscribed to its type, then the event is acknowledged so the sweep stops re-putting it.
 * The delivery id is derived from the event id, so an event that arrives twice delivers once.
 */
export async function fanOutEvent(detail: BusEventDetail, now = Date.now()): Promise<number> {
  const webhooks = (await listWebhooks(detail.workspace_id)).filter(
    (webhook) => webhook.isActive && subscribesTo(webhook, detail.event_type),
  );
  const envelope = envelopeOf(detail);
  const sent = await Promise.all(
    webhooks.map((webhook) => enqueueDelivery(newDelivery(webhook, detail.event_id, envelope, now))),
  );
  await acknowledgeEvent(detail.workspace_id, detail.event_id);
  return sent.filter(Boolean).length;
}
