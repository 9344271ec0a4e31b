import {
  type ExternalIdType,
  FOLDER_TYPES,
  type FolderType,
  kindOfFolderType,
  kindSpec,
} from '#shared/entities/kinds.ts';
import { requirePermission } from '#shared/entities/permissions.ts';
import { type ExternalId, findExternalIdOwner, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { folderNotFound } from '#shared/folders/require.ts';
import type { ListEntitiesQuery } from '#shared/folders/schemas.ts';
import { readTree } from '#shared/folders/store.ts';
import type { FolderRecord, FolderTree } from '#shared/folders/tree.ts';
import { withinAnswerLimit } from '#shared/platform/answer-limit.ts';
import { type AuthContext, allows, sameEmail } from '#shared/platform/auth-context.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { checkWorkspaceParam } from '#shared/platform/errors.ts';
import { within } from '#shared/versions/list.ts';
import {
  externalIdOwner,
  KIND_PLACEMENT,
  type PlacedEntity,
  type PlacedKind,
  placedExternalIds,
} from './placement.ts';

/**
 * What folders hold. Every kind is read through its own heads listing (KIND_PLACEMENT.list: one Query
 * of the kind's heads, paged through; dataset groups through the workspace's datasets and one
 * BatchGetItem of their groups) and kept when its folder is in scope, so a listing costs one Query of
 * the folder tree plus one listing per kind asked for, whatever the folder; then the external ids of
 * the entities listed that have any, and with include_metadata their latest versions, at most
 * DETAIL_READS at once. An entity whose folder is gone (deleted while it moved there) is at the root.
 */
const DETAIL_READS = 16;

export interface HeldEntity {
  kind: PlacedKind | 'folder';
  entity: PlacedEntity;
  /** The folder it is in as readers see it (null: the root). */
  folderId: number | null;
}

function folderAsPlaced(tree: FolderTree, folder: FolderRecord): PlacedEntity {
  return {
    id: folder.id,
    name: folder.name,
    created_at: folder.created_at,
    updated_at: folder.updated_at,
    folder_id: tree.parentOf(folder),
    user_email: null,
    has_external_ids: folder.has_external_ids,
    metadata: async () => ({}),
  };
}

/** Every entity of the kinds asked for, with the folder it is in. */
export async function entitiesByFolder(
  workspaceId: number,
  tree: FolderTree,
  kinds: readonly (PlacedKind | 'folder')[],
): Promise<HeldEntity[]> {
  const lists = await Promise.all(
    kinds.map(async (kind) => {
      const entities =
        kind === 'folder'
          ? tree.folders.map((folder) => folderAsPlaced(tree, folder))
          : await KIND_PLACEMENT[kind].list(workspaceId);
      return entities.map((entity) => ({
        kind,
        entity,
        folderId: entity.folder_id !== null && tree.get(entity.folder_id) ? entity.folder_id : null,
      }));
    }),
  );
  return lists.flat();
}

/** PromptLayer's folder types: what a listing without `filter_type` answers. */
const DEFAULT_LISTED_TYPES = FOLDER_TYPES.filter(
  (type) => !kindSpec(kindOfFolderType(type)!).folderTypeOnRequest,
);

/**
 * The kinds of the folder types asked for that can hold entities here (AB_TEST ... never do); without
 * types, PromptLayer's (tools and skill collections only when named).
 */
export function listedKinds(types: readonly FolderType[] = DEFAULT_LISTED_TYPES): (PlacedKind | 'folder')[] {
  return [...new Set(types)].flatMap((type) => {
    const kind = kindOfFolderType(type);
    if (!kind || kindSpec(kind).unsupported) return [];
    return [kind as PlacedKind | 'folder'];
  });
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/**
 * GET /api/public/v2/folders/entities. A type asked for by `filter_type` needs read access to its kind
 * (403 naming it); without `filter_type`, the kinds the key may not read are left out.
 */
export async function listFolderEntities(
  auth: Pick<AuthContext, 'workspaceId' | 'permissions'>,
  query: ListEntitiesQuery,
) {
  const { workspaceId } = auth;
  checkWorkspaceParam(query.workspace_id, workspaceId);
  const folderId = query.folder_id ?? null;
  const kinds = listedKinds(query.filter_type).filter((kind) => {
    if (query.filter_type) requirePermission(auth, kind, 'read');
    return allows(auth.permissions, kindSpec(kind).permission, 'read');
  });
  const byExternalId = query.external_source !== undefined && query.external_id !== undefined;
  const tree = await readTree(workspaceId);
  if (folderId !== null && !tree.get(folderId)) throw folderNotFound(folderId);
  const [held, owners] = await Promise.all([
    entitiesByFolder(workspaceId, tree, kinds),
    byExternalId ? externalIdOwners(workspaceId, kinds, query) : undefined,
  ]);
  // Flattened: everything below the folder (a folder entity's own place is its parent, so the folder
  // asked for is never among its contents).
  const inScope = (at: number | null) =>
    query.flatten && folderId !== null
      ? at !== null && tree.isWithin(at, folderId)
      : query.flatten || at === folderId;
  const search = query.search_query?.toLowerCase();
  const matching = held.filter(
    ({ kind, entity, folderId: at }) =>
      inScope(at) &&
      (search === undefined || entity.name.toLowerCase().includes(search)) &&
      within(entity.created_at, query.created_after, query.created_before) &&
      within(entity.updated_at, query.updated_after, query.updated_before) &&
      (query.created_by_email === undefined ||
        (entity.user_email !== null && sameEmail(entity.user_email, query.created_by_email))) &&
      (owners === undefined || owners.get(kind) === externalIdOwner(entity)),
  );
  matching.sort(entityOrder(query));
  const entities = new Array(matching.length);
  await forEachLimited(matching, DETAIL_READS, async ({ kind, entity, folderId: at }, i) => {
    const [externalIds, metadata] = await Promise.all([
      externalIdsOf(workspaceId, kind, entity),
      query.include_metadata ? entity.metadata?.() : undefined,
    ]);
    entities[i] = {
      id: entity.id,
      name: entity.name,
      type: kindSpec(kind).folderType as string,
      created_at: iso(entity.created_at),
      updated_at: iso(entity.updated_at),
      folder_id: at,
      path: tree.pathTo(at).map((step) => step.name),
      ...(query.include_metadata ? { metadata: metadata ?? null } : {}),
      external_ids: externalIds,
    };
  });
  return withinAnswerLimit(
    { entities },
    'narrow the listing with folder_id (without flatten), filter_type, search_query or the time filters',
  );
}

function externalIdsOf(
  workspaceId: number,
  kind: PlacedKind | 'folder',
  entity: PlacedEntity,
): Promise<ExternalId[]> {
  if (kind !== 'folder') return placedExternalIds(workspaceId, kind, entity);
  return entity.has_external_ids
    ? listExternalIds(workspaceId, 'folder', entity.id as number)
    : Promise.resolve([]);
}

/** Per kind that carries external ids, the entity holding the mapping asked for. */
async function externalIdOwners(
  workspaceId: number,
  kinds: readonly (PlacedKind | 'folder')[],
  query: ListEntitiesQuery,
): Promise<Map<string, number | undefined>> {
  const mapping = { source: query.external_source!, external_id: query.external_id! };
  const owners = await Promise.all(
    kinds.map(async (kind) => {
      const type = kindSpec(kind).externalId as ExternalIdType | undefined;
      return [kind, type ? await findExternalIdOwner(workspaceId, type, mapping) : undefined] as const;
    }),
  );
  return new Map(owners);
}

const TYPE_ORDER = new Map(FOLDER_TYPES.map((type, i) => [type as string, i]));

/**
 * With sort_by: by that field (sort_order, default desc). Without: folders first, then the other kinds
 * in the registry's order, each by name.
 */
function entityOrder(query: ListEntitiesQuery) {
  const typeRank = (held: HeldEntity) =>
    held.kind === 'folder' ? -1 : (TYPE_ORDER.get(kindSpec(held.kind).folderType as string) ?? 0);
  const tieBreak = (a: HeldEntity, b: HeldEntity) =>
    typeRank(a) - typeRank(b) ||
    String(a.entity.id).localeCompare(String(b.entity.id), 'en', { numeric: true });
  if (!query.sort_by) {
    return (a: HeldEntity, b: HeldEntity) =>
      typeRank(a) - typeRank(b) ||
      a.entity.name.toLowerCase().localeCompare(b.entity.name.toLowerCase()) ||
      tieBreak(a, b);
  }
  const sortBy = query.sort_by;
  const value = (held: HeldEntity): number | string => {
    const { entity } = held;
    if (sortBy === 'name') return entity.name.toLowerCase();
    if (sortBy === 'id') return typeof entity.id === 'number' ? entity.id : 0;
    return sortBy === 'created_at' ? entity.created_at : entity.updated_at;
  };
  const sign = query.sort_order === 'asc' ? 1 : -1;
  return (a: HeldEntity, b: HeldEntity) => {
    const [x, y] = [value(a), value(b)];
    return sign * (x < y ? -1 : x > y ? 1 : 0) || tieBreak(a, b);
  };
}
