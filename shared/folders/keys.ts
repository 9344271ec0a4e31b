/**
 * Table keys of folders (access patterns in docs/data-model.md). Every key starts with the workspace.
 *
 *   W#<ws>#FOLDERS                          F#<id>       one item per folder: id, name, parent_id (null
 *                                                        at the root), revision, created_at, updated_at,
 *                                                        has_external_ids
 *   W#<ws>#FOLDERNAME#<parent id|ROOT>#<name> FOLDERNAME  the name claimed in that parent: folder_id,
 *                                                        claimed_at
 *
 *   W#<ws>#FOLDERS                          TREELEASE    the lease a folder changing parent holds (status,
 *                                                        attempt, leaseUntil: shared/platform/lease.ts)
 *
 * All of a workspace's folders share one partition, so the whole tree (paths, descendants, existence
 * of any folder) is one Query. The name claims live apart, so that Query reads folders only.
 */
export const FOLDER_SK_PREFIX = 'F#';

export const foldersPartition = (workspaceId: number) => `W#${workspaceId}#FOLDERS`;

export const folderKey = (workspaceId: number, folderId: number) => ({
  PK: foldersPartition(workspaceId),
  SK: `${FOLDER_SK_PREFIX}${folderId}`,
});

/** A name is at most 255 characters (1020 bytes of UTF-8): kept whole in the key. */
export const folderNameKey = (workspaceId: number, parentId: number | null, name: string) => ({
  PK: `W#${workspaceId}#FOLDERNAME#${parentId ?? 'ROOT'}#${name}`,
  SK: 'FOLDERNAME',
});

/** The workspace's tree lease (not an `F#` item: the tree's Query does not read it). */
export const treeLeaseKey = (workspaceId: number) => ({ PK: foldersPartition(workspaceId), SK: 'TREELEASE' });
