import { FOLDER_TYPES, kindSpec } from '#shared/entities/kinds.ts';
import { requirePermission } from '#shared/entities/permissions.ts';
import { detachExternalId, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { folderNotFound } from '#shared/folders/require.ts';
import type { DeleteEntitiesBody } from '#shared/folders/schemas.ts';
import { readTree, removeFolder } from '#shared/folders/store.ts';
import type { FolderRecord } from '#shared/folders/tree.ts';
import type { AuthContext } from '#shared/platform/auth-context.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { badRequest, checkWorkspaceParam, conflict } from '#shared/platform/errors.ts';
import { entitiesByFolder, listedKinds } from './entities.ts';
import { findHeads, WRITES_IN_FLIGHT, writePlacement } from './move.ts';
import type { PlacedKind } from './placement.ts';

/**
 * Deleting folders. A folder that holds anything (a folder or an entity of any kind) is refused with a
 * 409 naming what it holds, unless `cascade`: then its subfolders are deleted too and every entity in
 * the subtree moves to the workspace root first. Deleting a folder never destroys a prompt, dataset,
 * report, ... (they are deleted with their own endpoints). Folders go deepest first, so a delete that
 * stops halfway leaves a smaller tree, never a folder under a deleted one.
 */

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export async function deleteFolders(
  auth: Pick<AuthContext, 'workspaceId' | 'permissions'>,
  folderIds: readonly number[],
  cascade: boolean,
) {
  const { workspaceId } = auth;
  const tree = await readTree(workspaceId);
  const roots: FolderRecord[] = [];
  for (const id of new Set(folderIds)) {
    const folder = tree.get(id);
    if (!folder) throw folderNotFound(id);
    roots.push(folder);
  }
  const doomed = new Map<number, FolderRecord>();
  for (const root of roots) for (const folder of tree.subtree(root.id)) doomed.set(folder.id, folder);
  // Every kind, ours included: a deleted folder's tools and skill collections move to the root too.
  const kinds = listedKinds(FOLDER_TYPES).filter((kind): kind is PlacedKind => kind !== 'folder');
  const held = (await entitiesByFolder(workspaceId, tree, kinds)).filter(
    (entry) => entry.folderId !== null && doomed.has(entry.folderId),
  );
  if (!cascade) {
    for (const root of roots) {
      const counts = new Map<string, number>();
      const subfolders = tree.children(root.id).length;
      if (subfolders) counts.set('folder', subfolders);
      for (const entry of held)
        if (entry.folderId === root.id) {
          const noun = kindSpec(entry.kind).noun;
          counts.set(noun, (counts.get(noun) ?? 0) + 1);
        }
      if (counts.size)
        throw conflict(
          `Folder ${root.id} is not empty: it holds ${[...counts].map(([noun, n]) => plural(n, noun)).join(', ')}; delete with cascade=true to move its entities to the workspace root and delete its subfolders`,
          'folder_not_empty',
        );
    }
  }
  // Moving an entity to the root edits it: the key needs edit on each kind moved (403 before any write).
  for (const kind of new Set(held.map((entry) => entry.kind as PlacedKind)))
    requirePermission(auth, kind, 'edit');
  // The entities to the root: found as a move finds them (an entity deleted meanwhile is left alone).
  const refs = held.map((entry) => ({
    kind: entry.kind as PlacedKind,
    id: entry.entity.id,
    ref: `${entry.kind}#${entry.entity.id}`,
  }));
  const { heads } = await findHeads(workspaceId, refs, async () => undefined);
  // Each only while still in the folder it was listed in (one moved out meanwhile stays where it went).
  const listedIn = new Map(refs.map((ref, i) => [ref.ref, held[i]!.folderId!]));
  let movedToRoot = 0;
  await forEachLimited([...heads], WRITES_IN_FLIGHT, async ([ref, head]) => {
    if (await writePlacement(head, null, listedIn.get(ref))) movedToRoot++;
  });
  // Deepest first: the subtree orders put children before their parent.
  let deleted = 0;
  const order = [...new Map(roots.flatMap((root) => tree.subtree(root.id)).map((f) => [f.id, f])).values()];
  for (const folder of order) {
    if (!(await removeFolder(workspaceId, folder))) continue;
    deleted++;
    if (folder.has_external_ids) {
      const mappings = await listExternalIds(workspaceId, 'folder', folder.id);
      await forEachLimited(mappings, WRITES_IN_FLIGHT, async (mapping) => {
        await detachExternalId(workspaceId, 'folder', folder.id, mapping);
      });
    }
  }
  return { deleted, movedToRoot };
}

/** DELETE /api/public/v2/folders/{folder_id}. */
export async function deleteFolder(
  auth: Pick<AuthContext, 'workspaceId' | 'permissions'>,
  folderId: number,
  cascade: boolean,
) {
  const { deleted, movedToRoot } = await deleteFolders(auth, [folderId], cascade);
  return { success: true as const, deleted_folders: deleted, moved_to_root: movedToRoot };
}

/**
 * DELETE /api/public/v2/folders/entities: folders only (as DELETE /folders/{id}); any other type is a
 * 400, as each kind is deleted with its own endpoint. `moved_count` counts the folders deleted.
 */
export async function deleteEntities(
  auth: Pick<AuthContext, 'workspaceId' | 'permissions'>,
  body: DeleteEntitiesBody,
) {
  checkWorkspaceParam(body.workspace_id, auth.workspaceId);
  const other = body.entities.find((ref) => ref.type !== 'FOLDER');
  if (other)
    throw badRequest(
      `Delete ${other.type} entities with their own endpoint; only FOLDER entities are deleted here`,
      'unsupported_entity_type',
    );
  const { deleted } = await deleteFolders(
    auth,
    body.entities.map((ref) => ref.id as number),
    body.cascade,
  );
  return { moved_count: deleted };
}
