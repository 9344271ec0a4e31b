import type { KindExternalId, KindIdKind } from '#shared/entities/kinds.ts';
import { claimExternalIds, type ExternalId, uniqueExternalIds } from '#shared/external-ids/external-ids.ts';
import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { requireFolder } from '#shared/folders/require.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { claimUniqueName, type NameClaim } from '#shared/platform/name-claims.ts';
import { createDraft, newDraft } from './drafts.ts';
import { groupKey, groupNameKey } from './keys.ts';
import type { DatasetGroupRecord, DatasetRecord } from './records.ts';
import { getGroup, putNewItem } from './repository.ts';

/**
 * Dataset groups. A name is claimed (shared/platform/name-claims.ts) before the group is written; a
 * crash between the two leaves a claim whose group is missing, which is stale after the claims' grace
 * period and then taken over by the next group of that name.
 */

export async function requireGroup(workspaceId: number, groupId: number): Promise<DatasetGroupRecord> {
  const group = await getGroup(workspaceId, groupId);
  if (!group) throw notFound(`Dataset group ${groupId} not found`);
  return group;
}

/**
 * The external ids of groups. A create claims them before the group exists, so one that crashed in
 * between leaves mappings of a missing group: the next claim of such a mapping takes it over.
 */
const GROUP_MAPPINGS = {
  entity: 'dataset_group' satisfies KindExternalId<'dataset'>,
  require: requireGroup,
  ownerExists: async (workspaceId: number, groupId: number) =>
    (await getGroup(workspaceId, groupId)) !== undefined,
} as const;

export const groupExternalIds = externalIdOperations(GROUP_MAPPINGS);

/** The claim of a group name in the workspace (its item: `groupId`, `createdAt`). */
const groupNameClaim = (workspaceId: number, name: string): NameClaim<number> => ({
  key: groupNameKey(workspaceId, name),
  ownerAttribute: 'groupId',
  claimedAtAttribute: 'createdAt',
  holds: async (groupId) => (await getGroup(workspaceId, groupId))?.name === name,
  taken: () => conflict(`A dataset group named ${JSON.stringify(name)} already exists`, 'name_taken'),
});

/**
 * Creates a group with its first draft, empty, in a folder of the workspace (404 when it is none) or at
 * the root. Names are unique per workspace (exact match). External
 * ids are claimed first, as a prompt publish claims them: a conflict is a 409 with nothing written, and
 * a name already taken releases them again (409 `name_taken`).
 */
export async function createDatasetGroup(
  workspaceId: number,
  userId: number,
  input: { name: string; folderId: number | null; externalIds?: readonly ExternalId[] },
): Promise<{ group: DatasetGroupRecord; draft: DatasetRecord; externalIds: ExternalId[] }> {
  // The folder it is filed under must be one of the workspace's (404), before an id is taken.
  await requireFolder(workspaceId, input.folderId);
  const groupId = await nextId('dataset_group' satisfies KindIdKind<'dataset'>);
  const externalIds = uniqueExternalIds(input.externalIds ?? []);
  const claimed = externalIds.length
    ? await claimExternalIds(workspaceId, 'dataset_group', groupId, externalIds, GROUP_MAPPINGS)
    : undefined;
  const group: DatasetGroupRecord = {
    id: groupId,
    workspaceId,
    name: input.name,
    folderId: input.folderId,
    userId,
    createdAt: Date.now(),
    lastVersion: 0,
  };
  try {
    await claimUniqueName(groupNameClaim(workspaceId, input.name), groupId);
    await putNewItem({ ...groupKey(workspaceId, groupId), ...group });
  } catch (error) {
    // No group was made: its mappings must not outlive it.
    await claimed?.release();
    throw error;
  }
  const draft = newDraft(group, await nextId('dataset'), userId, 'empty');
  await createDraft(draft);
  return { group, draft, externalIds };
}
