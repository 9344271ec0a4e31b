import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { folderNotFound } from './require.ts';
import { getFolder, markFolderExternalIds } from './store.ts';
import type { FolderRecord } from './tree.ts';

/**
 * A create claims its mappings before the folder item exists, so a crash in between leaves mappings
 * of a folder that never came to be, taken over after CLAIM_GRACE_MS; a deleted folder's mappings are
 * detached by the delete (or, had it crashed, taken over the same way).
 */
export const FOLDER_MAPPINGS = {
  entity: 'folder' as const,
  ownerExists: async (workspaceId: number, folderId: number) =>
    (await getFolder(workspaceId, folderId)) !== undefined,
};

export const folderExternalIds = externalIdOperations<FolderRecord>({
  ...FOLDER_MAPPINGS,
  async require(workspaceId, folderId) {
    const folder = await getFolder(workspaceId, folderId);
    if (!folder) throw folderNotFound(folderId);
    return folder;
  },
  // Flagged before the first mapping exists, so a listing never misses one.
  async beforeAttach(workspaceId, folder) {
    if (!folder.has_external_ids) await markFolderExternalIds(workspaceId, folder.id);
  },
});
