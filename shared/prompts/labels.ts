import type { EventActor } from '#shared/events/emit.ts';
import { notFound } from '#shared/platform/errors.ts';
import * as shared from '#shared/versions/labels.ts';
import { emitPromptEvents } from './events.ts';
import { findHead } from './read.ts';
import type { LabelEntry, TemplateHead } from './records.ts';
import { getTemplateName, promptStore } from './repository.ts';
import { invalidateTemplate } from './template-cache.ts';
import { toLabelsView, toLabelView } from './views.ts';

/**
 * Release labels of prompt templates besides those a publish creates: creating one on a version (POST
 * /prompts/{id}/label), moving one (PATCH /prompt-labels/{id}), deleting one, listing a template's. The changes are the shared ones of
 * versioned entities (shared/versions/labels.ts); this adds the cache and the prompt events.
 */

export type LabelView = ReturnType<typeof toLabelView>;

/** Creates a label on a version of the template with this id (POST /prompts/{prompt_id}/label). */
export async function createLabel(
  workspaceId: number,
  promptId: number,
  label: string,
  versionNumber: number,
  actor?: EventActor,
): Promise<LabelView> {
  const name = await getTemplateName(workspaceId, promptId);
  if (name === undefined) throw notFound(`Prompt template ${promptId} not found`);
  const { before, entry } = await shared.createLabel(promptStore, workspaceId, name, label, versionNumber);
  invalidateTemplate(workspaceId, name);
  await emitPromptEvents(
    workspaceId,
    [{ type: 'prompt_template_label_created', details: labelDetails(before, label, entry) }],
    actor,
  );
  return toLabelView(before.id, label, entry);
}

/** Moves a label to another version of its template. */
export async function moveLabel(
  workspaceId: number,
  labelId: number,
  versionNumber: number,
  actor?: EventActor,
): Promise<LabelView> {
  const { before, label, previous, entry } = await shared.moveLabel(
    promptStore,
    workspaceId,
    labelId,
    versionNumber,
  );
  invalidateTemplate(workspaceId, before.name);
  if (previous.version_number !== entry.version_number) {
    await emitPromptEvents(
      workspaceId,
      [
        {
          type: 'prompt_template_label_moved',
          details: {
            ...labelDetails(before, label, entry),
            previous_prompt_version_id: previous.prompt_version_id,
            previous_version_number: previous.version_number,
          },
        },
      ],
      actor,
    );
  }
  return toLabelView(before.id, label, entry);
}

/** Deletes a label: off the head first (it is gone for readers), then its pointer. */
export async function deleteLabel(workspaceId: number, labelId: number, actor?: EventActor): Promise<void> {
  const { before, label, entry } = await shared.deleteLabel(promptStore, workspaceId, labelId);
  invalidateTemplate(workspaceId, before.name);
  await emitPromptEvents(
    workspaceId,
    [{ type: 'prompt_template_label_deleted', details: labelDetails(before, label, entry) }],
    actor,
  );
}

/** The labels of a template, by name or id. */
export async function listLabels(workspaceId: number, identifier: string) {
  const head = await findHead(workspaceId, identifier);
  if (!head) throw notFound(`Prompt template ${identifier} not found`);
  return toLabelsView(head);
}

function labelDetails(head: TemplateHead, label: string, entry: LabelEntry) {
  return {
    prompt_id: head.id,
    prompt_name: head.name,
    prompt_label_id: entry.id,
    label,
    prompt_version_id: entry.prompt_version_id,
    version_number: entry.version_number,
  };
}
