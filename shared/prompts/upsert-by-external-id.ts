import type { EventActor } from '#shared/events/emit.ts';
import { type ExternalId, findExternalIdOwner } from '#shared/external-ids/external-ids.ts';
import { AppError } from '#shared/platform/errors.ts';
import { findHeadById } from './lookup.ts';
import { type PublishView, publishPromptTemplate } from './publish.ts';
import type { PublishBody } from './schemas.ts';

/**
 * PUT /prompt-templates/by-external-id/{source}/{external_id}: publishes to the template the mapping
 * names, creating it (with the mapping) when no template has it.
 *
 * - Mapped: a new version of that template. The mapping decides which template, so the body's
 *   `prompt_name` is not read (a template is never renamed; its name is in the answer).
 * - Not mapped: a publish under the body's `prompt_name` with the mapping added to its `external_ids`.
 *   The publish claims the mapping before it writes the version and releases it when the publish is
 *   refused (shared/versions/publish.ts), so the mapping and the version land together or not at all.
 *   A template of that name without the mapping gets it and a new version.
 * - Two first PUTs of one mapping: under one name the publish's same-name claim makes them one template;
 *   under two names the loser's claim meets the winner's mapping (409) and it publishes to the winner's
 *   template instead, as a later PUT would (waiting briefly for that template when the winner is mid-write).
 *
 * `created` is true when this call created the template (version 1).
 */
export async function upsertByExternalId(
  workspaceId: number,
  mapping: ExternalId,
  body: PublishBody,
  actor?: EventActor,
): Promise<{ created: boolean; view: PublishView }> {
  const mapped = await publishToMapped(workspaceId, mapping, body, actor);
  if (mapped) return { created: false, view: mapped };
  const withMapping = { ...body, external_ids: [...(body.external_ids ?? []), mapping] };
  try {
    const view = await publishPromptTemplate(workspaceId, withMapping, actor);
    return { created: view.version_number === 1, view };
  } catch (error) {
    const raced = error instanceof AppError && error.code === 'external_id_conflict';
    const view = raced ? await publishToWinner(workspaceId, mapping, body, actor) : undefined;
    if (!view) throw error;
    return { created: false, view };
  }
}

/** How long a loser waits, in all, for the winner's template to appear (the winner's publish is in flight). */
const WINNER_WAIT_MS = [25, 50, 100, 200, 400];

/**
 * The loser of a first-PUT race publishes to the winner's template. The winner claimed the mapping
 * before writing its template, so the loser may read the claim before the template exists: it reads
 * again a few times, then answers the 409 (a winner that crashed is taken over once its claim expires).
 */
async function publishToWinner(
  workspaceId: number,
  mapping: ExternalId,
  body: PublishBody,
  actor?: EventActor,
): Promise<PublishView | undefined> {
  for (const waitMs of [0, ...WINNER_WAIT_MS]) {
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const view = await publishToMapped(workspaceId, mapping, body, actor);
    if (view) return view;
  }
  return undefined;
}

/** A new version of the template holding the mapping; undefined when no visible template holds it. */
async function publishToMapped(
  workspaceId: number,
  mapping: ExternalId,
  body: PublishBody,
  actor?: EventActor,
): Promise<PublishView | undefined> {
  const owner = await findExternalIdOwner(workspaceId, 'prompt_template', mapping);
  // A mapping whose template has no head was claimed by a publish still running or one that crashed:
  // the publish path below adopts or takes it over (claimExternalIds).
  const head = owner === undefined ? undefined : await findHeadById(workspaceId, owner);
  if (!head) return undefined;
  const template = { ...body.prompt_template, prompt_name: head.name };
  return publishPromptTemplate(workspaceId, { ...body, prompt_template: template }, actor);
}
