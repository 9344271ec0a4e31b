import { notFound } from '#shared/platform/errors.ts';
import { getItem } from '#shared/platform/items.ts';
import { folderKey } from './keys.ts';

/**
 * The one read of a single folder, kept apart from the tree (store.ts, tree.ts) so that every create
 * that files an entity under a folder can check it without bundling the folder routes' code.
 */

export const folderNotFound = (folderId: number) => notFound(`Folder ${folderId} not found`);

/** The stored item of a folder of the workspace (strongly consistent): undefined when none has that id. */
export async function getFolderItem(workspaceId: number, folderId: number) {
  if (!Number.isSafeInteger(folderId) || folderId <= 0) return undefined;
  return getItem(folderKey(workspaceId, folderId));
}

/**
 * A folder an entity is filed under must be one of the workspace's: null or absent (the root) passes,
 * an unknown id or another workspace's answers 404 "Folder <id> not found". One GetItem; call it before
 * anything is written.
 */
export async function requireFolder(workspaceId: number, folderId: number | null | undefined): Promise<void> {
  if (folderId == null) return;
  if (!(await getFolderItem(workspaceId, folderId))) throw folderNotFound(folderId);
}
