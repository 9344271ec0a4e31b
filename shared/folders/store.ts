import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { conflict } from '#shared/platform/errors.ts';
import { deleteItem, putNewItem, updateItem } from '#shared/platform/items.ts';
import { claimLease } from '#shared/platform/lease.ts';
import { claimUniqueName, type NameClaim, releaseUniqueName } from '#shared/platform/name-claims.ts';
import { FOLDER_SK_PREFIX, folderKey, folderNameKey, foldersPartition, treeLeaseKey } from './keys.ts';
import { getFolderItem } from './require.ts';
import { type FolderRecord, FolderTree } from './tree.ts';

/**
 * Table access of folders (keys.ts). No transactions, so the single-item writes are ordered so that a
 * crash between two never leaves a folder without the claim of its name, and a claim left behind never
 * blocks for ever:
 * - a new folder claims (parent, name) first and writes its item last;
 * - a rename or move claims the new (parent, name), updates the folder (conditioned on the revision it
 *   read) and only then releases the old claim;
 * - a delete removes the folder item first and its claim after.
 * A claim whose folder does not hold that (parent, name) is stale once NAME_CLAIM_GRACE_MS old (longer
 * than any of those sequences takes), and the next claim of the name takes it over
 * (shared/platform/name-claims.ts).
 */
type Item = Record<string, unknown>;

export function folderFromItem(item: Item): FolderRecord {
  return {
    id: Number(item.id),
    name: String(item.name),
    parent_id: item.parent_id == null ? null : Number(item.parent_id),
    revision: Number(item.revision ?? 0),
    created_at: Number(item.created_at),
    updated_at: Number(item.updated_at),
    has_external_ids: item.has_external_ids === true,
  };
}

/** Every folder of the workspace: one Query (paged through when over 1 MB), strongly consistent. */
export async function readTree(workspaceId: number): Promise<FolderTree> {
  const folders: FolderRecord[] = [];
  let startKey: Item | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :folder)',
        ExpressionAttributeValues: { ':pk': foldersPartition(workspaceId), ':folder': FOLDER_SK_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) folders.push(folderFromItem(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return new FolderTree(folders);
}

export async function getFolder(workspaceId: number, folderId: number): Promise<FolderRecord | undefined> {
  const item = await getFolderItem(workspaceId, folderId);
  return item && folderFromItem(item);
}

export const nameTaken = (name: string, parentId: number | null) =>
  conflict(
    `A folder named ${name} already exists ${parentId === null ? 'at the workspace root' : `in folder ${parentId}`}`,
    'folder_exists',
  );

/** The claim of (parent, name) among a workspace's folders (shared/platform/name-claims.ts). */
const folderNameClaim = (workspaceId: number, parentId: number | null, name: string): NameClaim<number> => ({
  key: folderNameKey(workspaceId, parentId, name),
  ownerAttribute: 'folder_id',
  holds: async (id) => {
    const holder = await getFolder(workspaceId, Number(id));
    return holder !== undefined && holder.parent_id === parentId && holder.name === name;
  },
  taken: () => nameTaken(name, parentId),
});

/** Claims (parent, name) for the folder; a 409 when another folder holds it. */
export const claimFolderName = async (
  workspaceId: number,
  parentId: number | null,
  name: string,
  folderId: number,
): Promise<void> => {
  await claimUniqueName(folderNameClaim(workspaceId, parentId, name), folderId);
};

/** Gives a claim up, if the folder still holds it. */
export const releaseFolderName = async (
  workspaceId: number,
  parentId: number | null,
  name: string,
  folderId: number,
): Promise<void> => {
  await releaseUniqueName(folderNameClaim(workspaceId, parentId, name), folderId);
};

/** Writes a new folder's item (its name already claimed). */
export async function putFolder(workspaceId: number, folder: FolderRecord): Promise<void> {
  if (!(await putNewItem({ ...folderKey(workspaceId, folder.id), ...folder, workspace_id: workspaceId })))
    throw new Error(`Folder ${folder.id} already written`);
}

/**
 * Moves and/or renames a folder, if it is still at the revision read: false when it changed (or was
 * deleted) meanwhile. The caller holds the claim of the new (parent, name).
 */
export function writeFolderPlace(
  workspaceId: number,
  folder: FolderRecord,
  place: { name: string; parent_id: number | null },
  now = Date.now(),
): Promise<boolean> {
  return updateItem(folderKey(workspaceId, folder.id), {
    set: { name: place.name, parent_id: place.parent_id, revision: folder.revision + 1, updated_at: now },
    condition: '#revision = :revision',
    values: { ':revision': folder.revision },
  });
}

export function markFolderExternalIds(workspaceId: number, folderId: number): Promise<boolean> {
  return updateItem(folderKey(workspaceId, folderId), {
    set: { has_external_ids: true },
    condition: 'attribute_exists(#id)',
  });
}

/** Deletes the folder item and then its name claim; false when the folder was already gone. */
export async function removeFolder(workspaceId: number, folder: FolderRecord): Promise<boolean> {
  const deleted = await deleteItem(folderKey(workspaceId, folder.id), 'attribute_exists(#id)');
  // Its claim: the one of the place it had when read (a concurrent move left a claim that goes stale).
  await releaseFolderName(workspaceId, folder.parent_id, folder.name, folder.id);
  return deleted;
}

/** Longer than an HTTP function may run (10 s), so a lease lapses only once its holder is gone. */
export const TREE_LEASE_MS = 30_000;
/** Claims of a held lease before giving up: about 3 s of backoff in all. */
const TREE_LEASE_TRIES = 15;

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(250, 10 * 2 ** attempt) * (0.5 + Math.random() / 2)));

/**
 * Runs `work` (which reads the tree, checks and writes) while holding the workspace's tree lease, so
 * that no two folders change parent at once: two moves each into the other could otherwise both pass
 * their checks and form a cycle. A held lease is waited for (with backoff); still held after that, a
 * 409. A lease left by a crash lapses after TREE_LEASE_MS (and is then taken over).
 */
export async function withTreeLease<T>(workspaceId: number, work: () => Promise<T>): Promise<T> {
  const key = treeLeaseKey(workspaceId);
  for (let attempt = 0; ; attempt++) {
    const held = await claimLease<{ attempt: number }>(key, {
      now: Date.now(),
      leaseMs: TREE_LEASE_MS,
      absentIsQueued: true,
    });
    if (held) {
      try {
        return await work();
      } finally {
        // Deleted, not kept released, so a refused move leaves nothing behind. Only a holder that ran
        // past TREE_LEASE_MS (longer than a function may run) could delete a later holder's lease.
        await deleteItem(key, '#status = :running AND #attempt = :attempt', {
          ':running': 'RUNNING',
          ':attempt': held.attempt,
        });
      }
    }
    if (attempt === TREE_LEASE_TRIES)
      throw conflict('Another folder is being moved in this workspace; try again', 'folder_tree_busy');
    await pause(attempt);
  }
}
