import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ENV, requireEnv } from './config.ts';

/** Source of every event the service emits; the bus rules match on it. */
export const EVENT_SOURCE = 'promptops';

/** PutEvents takes at most 10 entries per call. */
const PUT_LIMIT = 10;

let events: EventBridgeClient | undefined;

export interface BusEntry {
  detailType: string;
  detail: unknown;
}

/**
 * Puts entries on the project bus, 10 per call. Answers the entries the bus did not accept (a whole
 * call that failed counts all of its entries), so the caller decides what a failure means.
 */
export async function putOnBus<T extends BusEntry>(entries: readonly T[]): Promise<T[]> {
  events ??= new EventBridgeClient({ endpoint: process.env[ENV.eventsEndpoint] || undefined });
  const client = events;
  const chunks: T[][] = [];
  for (let start = 0; start < entries.length; start += PUT_LIMIT)
    chunks.push(entries.slice(start, start + PUT_LIMIT));
  const failed = await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const result = await client.send(
          new PutEventsCommand({
            Entries: chunk.map((entry) => ({
              EventBusName: requireEnv(ENV.eventBusName),
              Source: EVENT_SOURCE,
              DetailType: entry.detailType,
              Detail: JSON.stringify(entry.detail),
            })),
          }),
        );
        if (!result.FailedEntryCount) return [];
        return chunk.filter((_, index) => result.Entries?.[index]?.ErrorCode);
      } catch {
        return chunk;
      }
    }),
  );
  return failed.flat();
}
