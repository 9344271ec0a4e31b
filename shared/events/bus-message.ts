import * as z from '#shared/platform/zod.ts';
import { EVENT_CATALOGUE, type EventEnvelope } from './catalogue.ts';

/**
 * What a bus rule's queue receives: the EventBridge event, whose `detail` is the envelope plus the
 * event's stable id (`event_id`). Consumers deduplicate on that id: the sweep may put an event again.
 */
export interface BusEventDetail extends EventEnvelope {
  event_id: string;
}

const detailSchema = z.object({
  event_id: z.string().check(z.minLength(1)),
  event_type: z.enum(Object.keys(EVENT_CATALOGUE) as [keyof typeof EVENT_CATALOGUE]),
  details: z.record(z.string(), z.unknown()),
  user_id: z.nullable(z.int()),
  user_name: z.nullable(z.string()),
  user_email: z.nullable(z.string()),
  workspace_id: z.int().check(z.positive()),
  timestamp: z.string(),
});

const eventBridgeEventSchema = z.object({
  'detail-type': z.string(),
  source: z.string(),
  detail: detailSchema,
});

/** Reads an SQS message body written by an EventBridge rule target; throws on anything else. */
export function parseBusMessage(body: string): BusEventDetail {
  return eventBridgeEventSchema.parse(JSON.parse(body)).detail as BusEventDetail;
}

/** The envelope a webhook receives: the detail without its id (which travels as `webhook-id`). */
export function envelopeOf(detail: BusEventDetail): EventEnvelope {
  const { event_id: _id, ...envelope } = detail;
  return envelope;
}
