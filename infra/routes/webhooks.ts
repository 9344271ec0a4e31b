import { SUBSCRIBABLE_EVENT_TYPES } from '#shared/events/catalogue.ts';
import { WEBHOOK_QUEUE_SETTINGS } from '#shared/webhooks/queues.ts';
import type { EventRuleDef, JobQueueDef, RouteDef } from '../route-types.ts';

/** Webhook registration, the delivery log, and the two queues that deliver events to webhooks. */
const FANOUT = WEBHOOK_QUEUE_SETTINGS.fanout;
const DELIVERY = WEBHOOK_QUEUE_SETTINGS.delivery;
const BASE = '/api/public/v2/webhooks';

export const WEBHOOK_ROUTES: readonly RouteDef[] = [
  // Derives the new webhook's secret; seals its custom headers.
  {
    method: 'POST',
    path: BASE,
    handler: 'functions/http/webhook-create.ts',
    table: 'write',
    masterKey: true,
  },
  { method: 'GET', path: BASE, handler: 'functions/http/webhooks-list.ts', table: 'read' },
  // The event catalogue (no table read but the key's).
  {
    method: 'GET',
    path: '/api/public/v2/webhook-event-types',
    handler: 'functions/http/webhook-event-types.ts',
    table: 'read',
  },
  { method: 'GET', path: `${BASE}/{webhook_id}`, handler: 'functions/http/webhook-get.ts', table: 'read' },
  {
    method: 'PATCH',
    path: `${BASE}/{webhook_id}`,
    handler: 'functions/http/webhook-update.ts',
    table: 'write',
    masterKey: true, // seals new custom headers
  },
  {
    method: 'DELETE',
    path: `${BASE}/{webhook_id}`,
    handler: 'functions/http/webhook-delete.ts',
    table: 'write',
  },
  {
    method: 'POST',
    path: `${BASE}/{webhook_id}/rotate-secret`,
    handler: 'functions/http/webhook-rotate-secret.ts',
    table: 'write',
    masterKey: true,
  },
  {
    method: 'POST',
    path: `${BASE}/{webhook_id}/test`,
    handler: 'functions/http/webhook-test.ts',
    table: 'write',
    queues: [DELIVERY.name],
  },
  {
    method: 'GET',
    path: `${BASE}/{webhook_id}/deliveries`,
    handler: 'functions/http/webhook-deliveries.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: `${BASE}/{webhook_id}/deliveries/{delivery_id}`,
    handler: 'functions/http/webhook-delivery-get.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: `${BASE}/{webhook_id}/deliveries/{delivery_id}/retry`,
    handler: 'functions/http/webhook-delivery-retry.ts',
    table: 'write',
    queues: [DELIVERY.name],
  },
];

export const WEBHOOK_JOB_QUEUES: Record<string, JobQueueDef> = {
  [FANOUT.name]: {
    worker: 'functions/workers/webhook-fanout.ts',
    batchSize: FANOUT.batchSize,
    maxReceiveCount: FANOUT.maxReceiveCount,
    timeoutSeconds: FANOUT.timeoutSeconds,
    memoryMb: 256,
    table: 'write', // delivery items, and the event's acknowledgement
    queues: [DELIVERY.name],
    maxConcurrency: 5,
  },
  [DELIVERY.name]: {
    worker: 'functions/workers/webhook-delivery.ts',
    batchSize: DELIVERY.batchSize,
    maxReceiveCount: DELIVERY.maxReceiveCount,
    timeoutSeconds: DELIVERY.timeoutSeconds,
    memoryMb: 256,
    table: 'write',
    masterKey: true, // derives signing secrets, opens custom headers
    maxConcurrency: 10,
  },
};

export const WEBHOOK_EVENT_RULES: Record<string, EventRuleDef> = {
  webhooks: {
    queue: FANOUT.name,
    eventTypes: SUBSCRIBABLE_EVENT_TYPES,
    description: 'Every event a webhook can subscribe to, to the webhook fan-out',
  },
};
