import { emitEvent } from '#shared/platform/events.ts';
import { logger } from '#shared/platform/logger.ts';

/** Webhook events of the registry. Details carry ids (and the names they belong to), never content. */
export type PromptEventType =
  | 'prompt_template_version_created'
  | 'prompt_template_label_created'
  | 'prompt_template_label_moved'
  | 'prompt_template_label_deleted';

export interface PromptEvent {
  type: PromptEventType;
  details: Record<string, unknown>;
}

/**
 * Puts the events on the bus. The change they report is already stored, so a bus failure is logged
 * rather than answered as an error: a client retrying a publish that succeeded would create a version.
 */
export async function emitPromptEvents(workspaceId: number, events: PromptEvent[]): Promise<void> {
  await Promise.all(
    events.map((event) =>
      emitEvent(workspaceId, event.type, event.details).catch((error: unknown) => {
        logger.error('Prompt event not delivered to the bus', {
          eventType: event.type,
          workspaceId,
          error: error as Error,
        });
      }),
    ),
  );
}
