import { EVENT_TYPES, type EventType, SUBSCRIBABLE_EVENT_TYPES } from '#shared/events/catalogue.ts';
import { isoTimestamp, pageFields } from '#shared/platform/response-schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import {
  ATTEMPT_EXCERPT_MAX_CHARS,
  type DeliveryRecord,
  MAX_RECORDED_ATTEMPTS,
  SIGNATURE_HEADERS,
  type WebhookRecord,
} from './repository.ts';
import { previousSecretExpiresAt } from './secrets.ts';
import { DELIVERY_STATUSES } from './validation.ts';

/** What the API answers for webhooks and deliveries, and the schemas of those answers. */
export const MASKED_HEADER_VALUE = '********';

export const webhookViewSchema = z
  .object({
    id: z.int(),
    url: z.string(),
    event_types: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES as [EventType, ...EventType[]])),
    description: z.nullable(z.string()),
    is_active: z.boolean(),
    headers: z.record(z.string(), z.literal(MASKED_HEADER_VALUE)).clone().register(z.globalRegistry, {
      description: 'The custom header names; their values are never shown again (`********`).',
    }),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    disabled_reason: z
      .nullable(z.string())
      .clone()
      .register(z.globalRegistry, { description: 'Why the service turned it off (a 410 answer).' }),
    previous_secret_expires_at: z.nullable(isoTimestamp).clone().register(z.globalRegistry, {
      description: 'Until when the secret a rotation replaced still signs too.',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Webhook' });
export type WebhookView = z.infer<typeof webhookViewSchema>;

export function toWebhookView(webhook: WebhookRecord): WebhookView {
  const expires = previousSecretExpiresAt(webhook);
  return {
    id: webhook.id,
    url: webhook.url,
    event_types: webhook.eventTypes ?? [...SUBSCRIBABLE_EVENT_TYPES],
    description: webhook.description,
    is_active: webhook.isActive,
    headers: Object.fromEntries(webhook.headerNames.map((name) => [name, MASKED_HEADER_VALUE])) as Record<
      string,
      typeof MASKED_HEADER_VALUE
    >,
    created_at: toIso(webhook.createdAt),
    updated_at: toIso(webhook.updatedAt),
    disabled_reason: webhook.disabledReason,
    previous_secret_expires_at: expires !== null && expires > Date.now() ? toIso(expires) : null,
  };
}

export const deliveryViewSchema = z
  .object({
    id: z
      .string()
      .clone()
      .register(z.globalRegistry, { description: 'Also the `webhook-id` header of every attempt.' }),
    webhook_id: z.int(),
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int(),
    last_status_code: z.nullable(z.int()),
    last_error: z.nullable(z.string()),
    next_attempt_at: z.nullable(isoTimestamp),
    created_at: isoTimestamp,
    delivered_at: z.nullable(isoTimestamp),
    dead_lettered: z.boolean().clone().register(z.globalRegistry, {
      description:
        'Failed on the last automatic attempt; its message went to the dead-letter queue (a retry clears it).',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WebhookDelivery' });
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

export function toDeliveryView(delivery: DeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.status === 'pending' ? isoOrNull(delivery.nextAttemptAt) : null,
    created_at: toIso(delivery.createdAt),
    delivered_at: isoOrNull(delivery.deliveredAt),
    dead_lettered: delivery.deadLettered,
  };
}

export const deliveryAttemptViewSchema = z
  .object({
    started_at: isoTimestamp,
    latency_ms: z
      .int()
      .clone()
      .register(z.globalRegistry, { description: 'From the start of the request to the end of its answer.' }),
    status_code: z
      .nullable(z.int())
      .clone()
      .register(z.globalRegistry, { description: 'null: no answer came (see `response_excerpt`).' }),
    response_excerpt: z
      .nullable(z.string())
      .clone()
      .register(z.globalRegistry, {
        description: `The first ${ATTEMPT_EXCERPT_MAX_CHARS} characters of the answer, or why none came.`,
      }),
    headers: z
      .object(Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, z.string()])))
      .clone()
      .register(z.globalRegistry, {
        description: 'The signature headers sent, exactly (custom headers are not kept).',
      }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WebhookDeliveryAttempt' });

export const deliveryDetailViewSchema = z
  .extend(deliveryViewSchema, {
    body: z
      .string()
      .clone()
      .register(z.globalRegistry, { description: 'The exact body every attempt sends (and signs).' }),
    attempt_log: z
      .array(deliveryAttemptViewSchema)
      .clone()
      .register(z.globalRegistry, {
        description: `The newest ${MAX_RECORDED_ATTEMPTS} attempts, oldest first.`,
      }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WebhookDeliveryDetail' });
export type DeliveryDetailView = z.infer<typeof deliveryDetailViewSchema>;

export function toDeliveryDetailView(delivery: DeliveryRecord): DeliveryDetailView {
  return {
    ...toDeliveryView(delivery),
    body: delivery.body,
    attempt_log: delivery.attemptLog.map((attempt) => ({
      started_at: toIso(attempt.startedAt),
      latency_ms: attempt.latencyMs,
      status_code: attempt.statusCode,
      response_excerpt: attempt.excerpt,
      headers: attempt.headers,
    })),
  };
}

const secretField = z
  .string()
  .clone()
  .register(z.globalRegistry, { description: '`whsec_...`: shown here only, store it now.' });

export const webhookCreatedSchema = z.object({
  success: z.literal(true),
  webhook: webhookViewSchema,
  secret: secretField,
});
export const webhookSchema = z.object({ success: z.literal(true), webhook: webhookViewSchema });
export const webhookListSchema = z.object({ success: z.literal(true), webhooks: z.array(webhookViewSchema) });
export const deliverySchema = z.object({ success: z.literal(true), delivery: deliveryViewSchema });
export const deliveryDetailSchema = z.object({
  success: z.literal(true),
  delivery: deliveryDetailViewSchema,
});
export const deliveryListSchema = z.object({
  success: z.literal(true),
  deliveries: z.array(deliveryViewSchema),
  ...pageFields,
});

export const eventTypeListSchema = z.object({
  success: z.literal(true),
  event_types: z.array(
    z
      .object({
        event_type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
        subscribable: z.boolean().clone().register(z.globalRegistry, {
          description: 'false for `webhook_test`, sent only by `POST /webhooks/{id}/test`.',
        }),
      })
      .clone()
      .register(z.globalRegistry, { id: 'WebhookEventType' }),
  ),
});

/** The event catalogue (docs/events.md), in its order: what a webhook's `event_types` may name. */
export function eventTypeList(): z.infer<typeof eventTypeListSchema> {
  return {
    success: true,
    event_types: EVENT_TYPES.map((type) => ({
      event_type: type,
      subscribable: (SUBSCRIBABLE_EVENT_TYPES as readonly EventType[]).includes(type),
    })),
  };
}
