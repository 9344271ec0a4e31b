import type { KindIdKind } from '#shared/entities/kinds.ts';
import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { withinAnswerLimit } from '#shared/platform/answer-limit.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { checkWorkspaceParam, conflict, invalid, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { FOLDER_MAPPINGS } from './external-ids.ts';
import { folderNotFound } from './require.ts';
import type { CreateFolderBody, FolderView, UpdateFolderBody } from './schemas.ts';
import {
  claimFolderName,
  getFolder,
  nameTaken,
  putFolder,
  readTree,
  releaseFolderName,
  withTreeLease,
  writeFolderPlace,
} from './store.ts';
import type { FolderRecord, FolderTree } from './tree.ts';

/** Folders: create, list, rename and move, resolve a path. Deletes: delete.ts; entity moves: move.ts. */

const iso = (ms: number) => new Date(ms).toISOString();

/** Reads of external ids in flight at once for a list. */
const EXTERNAL_ID_READS = 16;

export function folderView(
  workspaceId: number,
  tree: FolderTree,
  folder: FolderRecord,
  externalIds: ExternalId[],
): FolderView {
  const path = tree.ancestors(folder.id);
  return {
    id: folder.id,
    name: folder.name,
    created_at: iso(folder.created_at),
    updated_at: iso(folder.updated_at),
    path: path.length ? path : null,
    workspace_id: workspaceId,
    parent_id: tree.parentOf(folder),
    external_ids: externalIds,
  };
}

const externalIdsOf = (workspaceId: number, folder: FolderRecord) =>
  folder.has_external_ids ? listExternalIds(workspaceId, 'folder', folder.id) : Promise.resolve([]);

export const parentNotFound = (parentId: number) => notFound(`Parent folder ${parentId} not found`);

/** A new folder: the parent must exist, the name be free in it (409), the mappings free (409). */
export async function createFolder(workspaceId: number, body: CreateFolderBody) {
  checkWorkspaceParam(body.workspace_id, workspaceId);
  const parentId = body.parent_id ?? null;
  if (parentId !== null && !(await getFolder(workspaceId, parentId))) throw parentNotFound(parentId);
  const id = await nextId('folder' satisfies KindIdKind<'folder'>);
  await claimFolderName(workspaceId, parentId, body.name, id);
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  let claimed: Awaited<ReturnType<typeof claimExternalIds>> | undefined;
  try {
    if (externalIds.length)
      claimed = await claimExternalIds(workspaceId, 'folder', id, externalIds, FOLDER_MAPPINGS);
    const now = Date.now();
    await putFolder(workspaceId, {
      id,
      name: body.name,
      parent_id: parentId,
      revision: 0,
      created_at: now,
      updated_at: now,
      has_external_ids: externalIds.length > 0,
    });
  } catch (error) {
    await claimed?.release();
    await releaseFolderName(workspaceId, parentId, body.name, id);
    throw error;
  }
  const tree = await readTree(workspaceId);
  const folder = tree.get(id);
  if (!folder) throw new Error(`Folder ${id} not read back`);
  return { success: true as const, folder: folderView(workspaceId, tree, folder, externalIds) };
}

/** Every folder of the workspace, or the children of one (404 when that one does not exist). */
export async function listFolders(
  workspaceId: number,
  query: { workspace_id?: number; parent_id?: number | null },
) {
  checkWorkspaceParam(query.workspace_id, workspaceId);
  const tree = await readTree(workspaceId);
  if (query.parent_id != null && !tree.get(query.parent_id)) throw folderNotFound(query.parent_id);
  const folders = query.parent_id === undefined ? [...tree.folders] : [...tree.children(query.parent_id)];
  folders.sort((a, b) => a.created_at - b.created_at || a.id - b.id);
  const views: FolderView[] = new Array(folders.length);
  await forEachLimited(folders, EXTERNAL_ID_READS, async (folder, i) => {
    views[i] = folderView(workspaceId, tree, folder, await externalIdsOf(workspaceId, folder));
  });
  return withinAnswerLimit(
    { success: true as const, folders: views },
    'list the children of one folder at a time with parent_id',
  );
}

/**
 * Why a folder cannot go under `parentId`: a 422 for itself or one of its descendants, at the body
 * field that named the parent (`parent_id` of a folder update, `folder_id` of an entities move).
 */
export function intoItself(
  folderId: number,
  parentId: number,
  field: 'parent_id' | 'folder_id' = 'parent_id',
) {
  return invalid(
    ['body', field],
    parentId === folderId
      ? `folder ${folderId} cannot be moved into itself`
      : `folder ${folderId} cannot be moved into its descendant ${parentId}`,
  );
}

/**
 * Renames and/or moves a folder (`parent_id` null: to the root). The new (parent, name) is claimed
 * before the folder changes and the old one released after, so the folder always holds its claim.
 */
export function updateFolder(workspaceId: number, folderId: number, body: UpdateFolderBody) {
  // A change of parent holds the tree lease (no cycle from two racing moves); a rename needs none.
  return body.parent_id === undefined
    ? placeFolder(workspaceId, folderId, body)
    : withTreeLease(workspaceId, () => placeFolder(workspaceId, folderId, body));
}

async function placeFolder(workspaceId: number, folderId: number, body: UpdateFolderBody) {
  const tree = await readTree(workspaceId);
  const folder = tree.get(folderId);
  if (!folder) throw folderNotFound(folderId);
  const name = body.name ?? folder.name;
  const parentId = body.parent_id === undefined ? tree.parentOf(folder) : body.parent_id;
  if (parentId !== null) {
    if (!tree.get(parentId)) throw parentNotFound(parentId);
    if (tree.isWithin(parentId, folderId)) throw intoItself(folderId, parentId);
  }
  const unchanged = name === folder.name && parentId === folder.parent_id;
  if (!unchanged) {
    const holder = tree.childNamed(parentId, name);
    if (holder && holder.id !== folderId) throw nameTaken(name, parentId);
    await claimFolderName(workspaceId, parentId, name, folderId);
    const now = Date.now();
    if (!(await writeFolderPlace(workspaceId, folder, { name, parent_id: parentId }, now))) {
      await releaseFolderName(workspaceId, parentId, name, folderId);
      throw conflict(`Folder ${folderId} was changed or deleted meanwhile; read it and try again`);
    }
    await releaseFolderName(workspaceId, folder.parent_id, folder.name, folderId);
    Object.assign(folder, { name, parent_id: parentId, revision: folder.revision + 1, updated_at: now });
  }
  const updated = await readTree(workspaceId);
  const current = updated.get(folderId) ?? folder;
  return {
    success: true as const,
    folder: folderView(workspaceId, updated, current, await externalIdsOf(workspaceId, current)),
  };
}

/**
 * The folder at a dot-separated path of names from the root. A name may itself hold dots: each level
 * tries the children whose names match one or more of the next segments.
 */
export async function resolveFolderPath(workspaceId: number, query: { workspace_id?: number; path: string }) {
  checkWorkspaceParam(query.workspace_id, workspaceId);
  const tree = await readTree(workspaceId);
  const segments = query.path.split('.');
  const search = (parentId: number | null, from: number): FolderRecord | undefined => {
    for (const child of tree.children(parentId)) {
      for (let to = from + 1; to <= segments.length; to++) {
        if (segments.slice(from, to).join('.') !== child.name) continue;
        const found = to === segments.length ? child : search(child.id, to);
        if (found) return found;
      }
    }
    return undefined;
  };
  const folder = search(null, 0);
  if (!folder) throw notFound(`Folder path ${query.path} not found`);
  return { success: true as const, id: folder.id };
}
