import { badRequest, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { createDraft, newDraft } from './drafts.ts';
import { groupKey, groupNameKey } from './keys.ts';
import type { DatasetGroupRecord, DatasetRecord } from './records.ts';
import { deleteItem, getGroup, getItem, putNewItem } from './repository.ts';

/**
 * Dataset groups. A name is taken by a conditional put of a name item before the group is written; a
 * crash between the two leaves a name item whose group is missing, which is stale after a grace
 * period and then taken over by the next group of that name.
 */
const NAME_GRACE_MS = 60_000;

export async function requireGroup(workspaceId: number, groupId: number): Promise<DatasetGroupRecord> {
  const group = await getGroup(workspaceId, groupId);
  if (!group) throw notFound(`Dataset group ${groupId} not found`);
  return group;
}

async function claimName(workspaceId: number, name: string, groupId: number): Promise<void> {
  const key = groupNameKey(workspaceId, name);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await putNewItem({ ...key, groupId, createdAt: Date.now() })) return;
    const taken = await getItem(key);
    if (!taken) continue; // released meanwhile
    const owner = await getGroup(workspaceId, Number(taken.groupId));
    if (owner || Date.now() - Number(taken.createdAt) < NAME_GRACE_MS) break;
    await deleteItem(key, '#groupId = :group', { ':group': taken.groupId });
  }
  throw badRequest(`A dataset group named ${JSON.stringify(name)} already exists`, 'name_taken');
}

/** Creates a group with its first draft, empty. Names are unique per workspace (exact match). */
export async function createDatasetGroup(
  workspaceId: number,
  userId: number,
  input: { name: string; folderId: number | null },
): Promise<{ group: DatasetGroupRecord; draft: DatasetRecord }> {
  const groupId = await nextId('dataset_group');
  await claimName(workspaceId, input.name, groupId);
  const group: DatasetGroupRecord = {
    id: groupId,
    workspaceId,
    name: input.name,
    folderId: input.folderId,
    userId,
    createdAt: Date.now(),
    lastVersion: 0,
  };
  await putNewItem({ ...groupKey(workspaceId, groupId), ...group });
  const draft = newDraft(group, await nextId('dataset'), userId, 'empty');
  await createDraft(draft);
  return { group, draft };
}
