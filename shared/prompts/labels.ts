import type { EventActor } from '#shared/events/emit.ts';
import { notFound } from '#shared/platform/errors.ts';
import { emitPromptEvents } from './events.ts';
import { findHead } from './read.ts';
import { type LabelEntry, labelOf, type TemplateHead } from './records.ts';
import {
  deleteLabelCopy,
  deleteLabelPointer,
  getHead,
  getLabelPointer,
  getVersion,
  putLabelCopy,
  updateHead,
} from './repository.ts';
import { invalidateTemplate } from './template-cache.ts';
import { toLabelsView, toLabelView } from './views.ts';

/**
 * Release labels after their creation by a publish: moving one (PATCH /prompt-labels/{id}), deleting
 * one, listing a template's. A label lives in its template's head (`labels.<name>`); its id reaches it
 * through the label pointer item. Each change is one conditional UpdateItem of the head that also
 * checks the label still has that id, so a label deleted meanwhile is a 404, never a resurrection.
 * Next to the head, each label keeps a copy of its version for reads by label (repository.ts): a move
 * writes it along with the head, a deletion removes it after.
 */

const labelNotFound = (labelId: number) => notFound(`Prompt label ${labelId} not found`);

export type LabelView = ReturnType<typeof toLabelView>;

/** Moves a label to another version of its template. */
export async function moveLabel(
  workspaceId: number,
  labelId: number,
  versionNumber: number,
  actor?: EventActor,
): Promise<LabelView> {
  const pointer = await getLabelPointer(workspaceId, labelId);
  if (!pointer) throw labelNotFound(labelId);
  const { prompt_name: name, label } = pointer;
  const version = await getVersion(workspaceId, name, versionNumber);
  if (!version) {
    const head = await getHead(workspaceId, name);
    if (!head || labelOf(head, label)?.id !== labelId) throw labelNotFound(labelId);
    throw notFound(`Version ${versionNumber} of prompt template ${name} not found`);
  }
  const now = Date.now();
  // The copy goes with the head (a move may go back, so it is not monotonic); a reader meanwhile that
  // finds it out of step reads the version itself. A move onto the same version rewrites a stale copy.
  const [before] = await Promise.all([
    updateHead(workspaceId, name, {
      updatedAt: now,
      move: [{ name: label, id: labelId, prompt_version_id: version.id, version_number: version.number }],
    }),
    putLabelCopy(workspaceId, label, version, { monotonic: false }),
  ]);
  const previous = before && labelOf(before, label);
  if (!before || !previous) throw labelNotFound(labelId);
  invalidateTemplate(workspaceId, name);

  const entry: LabelEntry = {
    ...previous,
    prompt_version_id: version.id,
    version_number: version.number,
    updated_at: now,
  };
  if (previous.version_number !== version.number) {
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
export async function deleteLabel(
  workspaceId: number,
  labelId: number,
  actor?: EventActor,
): Promise<{ success: true }> {
  const pointer = await getLabelPointer(workspaceId, labelId);
  if (!pointer) throw labelNotFound(labelId);
  const { prompt_name: name, label } = pointer;
  const before = await updateHead(workspaceId, name, {
    updatedAt: Date.now(),
    remove: { name: label, id: labelId },
  });
  const removed = before && labelOf(before, label);
  if (!before || !removed) throw labelNotFound(labelId);
  await Promise.all([
    deleteLabelPointer(workspaceId, labelId),
    deleteLabelCopy(workspaceId, name, label, removed.prompt_version_id),
  ]);
  invalidateTemplate(workspaceId, name);
  await emitPromptEvents(
    workspaceId,
    [{ type: 'prompt_template_label_deleted', details: labelDetails(before, label, removed) }],
    actor,
  );
  return { success: true };
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
