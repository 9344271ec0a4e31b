import { type EventActor, emitEvents, type NewEvent } from '#shared/events/emit.ts';
import { logger } from '#shared/platform/logger.ts';

/** Webhook events of the registry. Details carry ids (and the names they belong to), never content. */
export type PromptEvent = Extract<
  NewEvent,
  {
    type:
      | 'prompt_template_version_created'
      | 'prompt_template_label_created'
      | 'prompt_template_label_moved'
      | 'prompt_template_label_deleted';
  }
>;

/**
 * Records the events and puts them on the bus. The change they report is already stored, so a failure
 * is logged rather than answered as an error: a client retrying a publish that succeeded would create a
 * version. A bus failure loses nothing (the sweep puts the recorded events again); only a table that
 * refuses the event write, after the SDK's own retries, right after accepting the change, would.
 */
export async function emitPromptEvents(
  workspaceId: number,
  events: PromptEvent[],
  actor?: EventActor,
): Promise<void> {
  await emitEvents(workspaceId, events, actor).catch((error: unknown) => {
    logger.error('Prompt events not recorded', {
      eventTypes: events.map((event) => event.type),
      workspaceId,
      error: error as Error,
    });
  });
}
