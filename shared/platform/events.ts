import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ENV, requireEnv } from './config.ts';

/** Source of every event the service emits; the bus rules match on it. */
export const EVENT_SOURCE = 'promptops';

let events: EventBridgeClient | undefined;

/**
 * Puts one webhook event on the project bus in the webhook envelope:
 * `{event_type, details, workspace_id, timestamp}`. Details carry ids, never payloads.
 */
export async function emitEvent(workspaceId: number, eventType: string, details: Record<string, unknown>) {
  const envelope = {
    event_type: eventType,
    details,
    workspace_id: workspaceId,
    timestamp: new Date().toISOString(),
  };
  events ??= new EventBridgeClient({ endpoint: process.env[ENV.eventsEndpoint] || undefined });
  const result = await events.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: requireEnv(ENV.eventBusName),
          Source: EVENT_SOURCE,
          DetailType: eventType,
          Detail: JSON.stringify(envelope),
        },
      ],
    }),
  );
  if (result.FailedEntryCount) {
    throw new Error(`Event ${eventType} was not accepted: ${result.Entries?.[0]?.ErrorCode ?? 'unknown'}`);
  }
}
