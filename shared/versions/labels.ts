import { conflict, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { type Head, type LabelEntryBase, labelEntry, labelOf, labelVersionId } from './kind.ts';
import type { VersionStore } from './store.ts';

/**
 * Release labels after their creation by a publish: moving one, deleting one. A label lives in its
 * entity's head (`labels.<name>`); its id reaches it through the label pointer item. Each change is one
 * conditional UpdateItem of the head that also checks the label still has that id, so a label deleted
 * meanwhile is a 404, never a resurrection. Next to the head, each label keeps a copy of its version
 * for reads by label (store.ts): a move writes it along with the head, a deletion removes it after.
 */

export interface LabelChanged<L extends LabelEntryBase, X> {
  /** The head as it was before the change. */
  before: Head<L, X>;
  label: string;
  /** Where the label pointed before. */
  previous: L;
  /** Where it points now (the entry removed, for a deletion). */
  entry: L;
}

const labelNotFound = (noun: string, labelId: number) => notFound(`${noun} ${labelId} not found`);

/**
 * Creates a label on a version of an entity that does not have it yet (a label already on it is a 409:
 * it moves with moveLabel). The pointer is written first (unreferenced until the head names it), then
 * the head with a condition that the label is still absent, then the copy reads by label use.
 */
export async function createLabel<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  name: string,
  label: string,
  versionNumber: number,
): Promise<{ before: Head<L, X>; entry: L }> {
  const { kind } = store;
  const [version, head] = await Promise.all([
    store.getVersion(workspaceId, name, versionNumber),
    store.getHead(workspaceId, name),
  ]);
  if (!head) throw notFound(`${kind.noun} ${name} not found`);
  if (!version) throw notFound(`Version ${versionNumber} of ${kind.noun.toLowerCase()} ${name} not found`);
  const existing = labelOf(head, label);
  if (existing) throw labelTaken(kind.noun, name, label, existing.version_number);
  const place = kind.placeOf(version);
  const id = await nextId(kind.ids.label);
  const now = Date.now();
  const entry = labelEntry<L>(
    kind,
    { id, version_number: place.number, created_at: now, updated_at: now },
    place.id,
  );
  await store.putPointers(workspaceId, { labels: [{ id, name, label }] });
  const before = await store.updateHead(workspaceId, name, { updatedAt: now, create: { [label]: entry } });
  if (!before) {
    // Another request created the label first: this pointer names nothing.
    await store.deleteLabelPointer(workspaceId, id);
    const current = await store.getHead(workspaceId, name);
    const taken = current && labelOf(current, label);
    if (taken) throw labelTaken(kind.noun, name, label, taken.version_number);
    throw notFound(`${kind.noun} ${name} not found`);
  }
  await store.putLabelCopy(workspaceId, label, version, { monotonic: false });
  return { before, entry };
}

const labelTaken = (noun: string, name: string, label: string, versionNumber: number) =>
  conflict(
    `${noun} ${name} already has the label ${label} (on version ${versionNumber}): move that label instead`,
  );

/** Moves a label to another version of its entity. */
export async function moveLabel<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  labelId: number,
  versionNumber: number,
): Promise<LabelChanged<L, X>> {
  const { kind } = store;
  const pointer = await store.getLabelPointer(workspaceId, labelId);
  if (!pointer) throw labelNotFound(kind.labelNoun, labelId);
  const { name, label } = pointer;
  const version = await store.getVersion(workspaceId, name, versionNumber);
  if (!version) {
    const head = await store.getHead(workspaceId, name);
    if (!head || labelOf(head, label)?.id !== labelId) throw labelNotFound(kind.labelNoun, labelId);
    throw notFound(`Version ${versionNumber} of ${kind.noun.toLowerCase()} ${name} not found`);
  }
  const place = kind.placeOf(version);
  const now = Date.now();
  // The copy goes with the head (a move may go back, so it is not monotonic); a reader meanwhile that
  // finds it out of step reads the version itself. A move onto the same version rewrites a stale copy.
  const [before] = await Promise.all([
    store.updateHead(workspaceId, name, {
      updatedAt: now,
      move: [{ name: label, id: labelId, versionId: place.id, version_number: place.number }],
    }),
    store.putLabelCopy(workspaceId, label, version, { monotonic: false }),
  ]);
  const previous = before && labelOf(before, label);
  if (!before || !previous) throw labelNotFound(kind.labelNoun, labelId);
  const entry = labelEntry(kind, { ...previous, version_number: place.number, updated_at: now }, place.id);
  return { before, label, previous, entry };
}

/** Deletes a label: off the head first (it is gone for readers), then its pointer and copy. */
export async function deleteLabel<V, L extends LabelEntryBase, X>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  labelId: number,
): Promise<LabelChanged<L, X>> {
  const { kind } = store;
  const pointer = await store.getLabelPointer(workspaceId, labelId);
  if (!pointer) throw labelNotFound(kind.labelNoun, labelId);
  const { name, label } = pointer;
  const before = await store.updateHead(workspaceId, name, {
    updatedAt: Date.now(),
    remove: { name: label, id: labelId },
  });
  const removed = before && labelOf(before, label);
  if (!before || !removed) throw labelNotFound(kind.labelNoun, labelId);
  await Promise.all([
    store.deleteLabelPointer(workspaceId, labelId),
    store.deleteLabelCopy(workspaceId, name, label, labelVersionId(kind, removed)),
  ]);
  return { before, label, previous: removed, entry: removed };
}

/** A head's labels by name, in name order. */
export function sortedLabels<L>(head: { labels: Record<string, L> }): [string, L][] {
  return Object.entries(head.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
