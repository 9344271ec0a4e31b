import { putOnBus } from '#shared/platform/events.ts';
import { logger } from '#shared/platform/logger.ts';
import type { BusEventDetail } from './bus-message.ts';
import { type CatalogueEvent, EVENT_CATALOGUE } from './catalogue.ts';
import { eventId, recordEvents } from './store.ts';

/** Who made the change an event reports (the envelope's `user_*`). */
export interface EventActor {
  userId: number;
  /** The user's e-mail address (the envelope's `user_email`); absent or null when it has none. */
  userEmail?: string | null;
}

/**
 * An event as a producer hands it over. `key` names the change for a producer that may report it twice
 * (a redelivered job): both reports are then one event with one id.
 */
export type NewEvent = CatalogueEvent & { key?: string };

/**
 * Reports changes that are already stored: each event is checked against the catalogue, written as a
 * durable item (one DynamoDB write for the whole list), then put on the bus. A bus failure is logged,
 * not thrown: the change happened, and the sweep puts the event on the bus later. A failure to write
 * the items is thrown, so the caller's own retry (SQS, or the client) reports the change again.
 */
export async function emitEvents(workspaceId: number, events: NewEvent[], actor?: EventActor): Promise<void> {
  if (events.length === 0) return;
  const timestamp = new Date();
  const details = events.map(
    (event): BusEventDetail => ({
      event_id: eventId(workspaceId, event.type, event.key),
      event_type: event.type,
      details: EVENT_CATALOGUE[event.type].parse(event.details) as Record<string, unknown>,
      user_id: actor?.userId ?? null,
      user_name: null,
      user_email: actor?.userEmail ?? null,
      workspace_id: workspaceId,
      timestamp: timestamp.toISOString(),
    }),
  );
  const fresh = await recordEvents(details, timestamp.getTime());
  await putDetails(fresh);
}

/** Puts recorded events on the bus, once more for those it refuses; answers those still refused. */
export async function putDetails(details: BusEventDetail[]): Promise<BusEventDetail[]> {
  const entries = details.map((detail) => ({ detailType: detail.event_type, detail }));
  let failed = await putOnBus(entries);
  if (failed.length) failed = await putOnBus(failed);
  if (failed.length) {
    logger.warn('Events not accepted by the bus; the sweep will put them again', {
      eventIds: failed.map((entry) => entry.detail.event_id),
    });
  }
  return failed.map((entry) => entry.detail);
}
