import { createHash, randomUUID } from 'node:crypto';
import type { EventEnvelope } from '#shared/events/catalogue.ts';
import type { EventActor } from '#shared/events/emit.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { sendJob } from '#shared/platform/jobs.ts';
import { toPage } from '#shared/platform/pagination.ts';
import * as z from '#shared/platform/zod.ts';
import { WEBHOOK_QUEUE_SETTINGS } from './queues.ts';
import {
  type AnyDeliveryRecord,
  createDelivery,
  type DeliveryRecord,
  type DeliveryRef,
  getDelivery,
  pendingDelivery,
  queryDeliveries,
  resetDeliveryForRetry,
  type WebhookRecord,
} from './repository.ts';
import { pythonJson } from './signing.ts';
import type { DeliveryStatus } from './validation.ts';
import { toDeliveryDetailView, toDeliveryView } from './views.ts';
import { requireWebhook } from './webhooks.ts';

/**
 * Deliveries: one item per (event, webhook), or per workflow run with a callback URL, put on the
 * delivery queue; listing, test and retry (of webhook deliveries).
 */
export const WEBHOOK_DELIVERY_QUEUE = WEBHOOK_QUEUE_SETTINGS.delivery.name;

/** One attempt of one delivery: to a webhook, or to a workflow run's callback URL. */
export const deliveryMessageSchema = z.discriminatedUnion('type', [
  z.object({
    v: z.literal(1),
    type: z.literal('webhook_delivery'),
    workspace_id: z.int().check(z.positive()),
    webhook_id: z.int().check(z.positive()),
    delivery_id: z.string().check(z.minLength(1)),
  }),
  z.object({
    v: z.literal(1),
    type: z.literal('run_callback'),
    workspace_id: z.int().check(z.positive()),
    execution_id: z.int().check(z.positive()),
    delivery_id: z.string().check(z.minLength(1)),
  }),
]);
export type DeliveryMessage = z.infer<typeof deliveryMessageSchema>;

/** A delivery id (the `webhook-id` header) that is a function of what is delivered, never random. */
export function stableDeliveryId(key: string): string {
  return `msg_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** The same event for the same webhook always gets the same delivery id (the `webhook-id` header). */
export function deliveryIdFor(eventId: string, webhookId: number): string {
  return stableDeliveryId(`${eventId}:${webhookId}`);
}

export function newDelivery(
  webhook: Pick<WebhookRecord, 'workspaceId' | 'id'>,
  eventId: string,
  envelope: EventEnvelope,
  now = Date.now(),
): DeliveryRecord {
  return {
    // Serialised once: every attempt sends (and signs) exactly these bytes.
    ...pendingDelivery(deliveryIdFor(eventId, webhook.id), webhook.workspaceId, pythonJson(envelope), now),
    webhookId: webhook.id,
    eventId,
    eventType: envelope.event_type,
  };
}

export async function sendDelivery(delivery: DeliveryRef) {
  const message: DeliveryMessage =
    delivery.webhookId !== undefined
      ? {
          v: 1,
          type: 'webhook_delivery',
          workspace_id: delivery.workspaceId,
          webhook_id: delivery.webhookId,
          delivery_id: delivery.id,
        }
      : {
          v: 1,
          type: 'run_callback',
          workspace_id: delivery.workspaceId,
          execution_id: delivery.executionId,
          delivery_id: delivery.id,
        };
  await sendJob(WEBHOOK_DELIVERY_QUEUE, message);
}

/**
 * Creates the delivery and puts it on the queue. A delivery that exists already (the same event
 * again) is not sent again, unless it was never attempted: its message may have been lost (a crash
 * between the put and the send), and a second message for one delivery is harmless (an attempt claims
 * the delivery, and a message for one no longer pending does nothing). Returns whether it was sent.
 */
export async function enqueueDelivery(delivery: AnyDeliveryRecord): Promise<boolean> {
  const result = await createDelivery(delivery);
  const neverAttempted = (existing?: AnyDeliveryRecord) =>
    existing?.status === 'pending' && existing.attempts === 0;
  if (!result.created && !neverAttempted(result.existing)) return false;
  await sendDelivery(delivery);
  return true;
}

/** POST /webhooks/{id}/test: a `webhook_test` event for this webhook alone, through the queue. */
export async function sendTestEvent(workspaceId: number, webhookId: number, actor?: EventActor) {
  const webhook = await requireWebhook(workspaceId, webhookId);
  const now = Date.now();
  const envelope: EventEnvelope = {
    event_type: 'webhook_test',
    details: { webhook_id: webhook.id, message: 'A test event from promptops' },
    user_id: actor?.userId ?? null,
    user_name: null,
    user_email: actor?.userEmail ?? null,
    workspace_id: workspaceId,
    timestamp: new Date(now).toISOString(),
  };
  const delivery = newDelivery(webhook, `evt_test_${randomUUID()}`, envelope, now);
  await enqueueDelivery(delivery);
  return { success: true as const, delivery: toDeliveryView(delivery) };
}

export async function listDeliveries(
  workspaceId: number,
  webhookId: number,
  query: { status?: DeliveryStatus; page: number; per_page: number },
) {
  await requireWebhook(workspaceId, webhookId);
  const { items, total } = await queryDeliveries(workspaceId, webhookId, {
    status: query.status,
    page: query.page,
    perPage: query.per_page,
  });
  const { items: deliveries, ...page } = toPage(items.map(toDeliveryView), query.page, query.per_page, total);
  return { success: true as const, deliveries, ...page };
}

const deliveryNotFound = () => notFound('Delivery not found');

/** One delivery with its body and its recorded attempts (the delivery inspector). */
export async function getDeliveryDetail(workspaceId: number, webhookId: number, deliveryId: string) {
  await requireWebhook(workspaceId, webhookId);
  const delivery = await getDelivery(workspaceId, webhookId, deliveryId);
  if (!delivery) throw deliveryNotFound();
  return { success: true as const, delivery: toDeliveryDetailView(delivery) };
}

/** Sends a delivery again, whatever its status (a fresh message; its attempts keep counting). */
export async function retryDelivery(workspaceId: number, webhookId: number, deliveryId: string) {
  await requireWebhook(workspaceId, webhookId);
  if (!(await getDelivery(workspaceId, webhookId, deliveryId))) throw deliveryNotFound();
  const reset = await resetDeliveryForRetry(workspaceId, webhookId, deliveryId);
  if (!reset) {
    if (!(await getDelivery(workspaceId, webhookId, deliveryId))) throw deliveryNotFound();
    throw conflict(
      'The delivery is being attempted right now: retry it once that attempt is over',
      'delivery_in_progress',
    );
  }
  await sendDelivery(reset);
  return { success: true as const, delivery: toDeliveryView(reset) };
}
