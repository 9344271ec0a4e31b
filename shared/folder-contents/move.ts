import { type EntityKind, kindOfFolderType, kindSpec } from '#shared/entities/kinds.ts';
import { intoItself } from '#shared/folders/folders.ts';
import { folderNotFound } from '#shared/folders/require.ts';
import type { EntityReference, MoveEntitiesBody } from '#shared/folders/schemas.ts';
import {
  claimFolderName,
  nameTaken,
  readTree,
  releaseFolderName,
  withTreeLease,
  writeFolderPlace,
} from '#shared/folders/store.ts';
import type { FolderRecord, FolderTree } from '#shared/folders/tree.ts';
import { batchGetItems } from '#shared/platform/batch.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { checkWorkspaceParam, notFound } from '#shared/platform/errors.ts';
import { updateItem } from '#shared/platform/items.ts';
import type { TableKey } from '#shared/versions/keys.ts';
import { type EntityId, KIND_PLACEMENT, type PlacedKind } from './placement.ts';

/**
 * Moving entities of any kinds into a folder (or the root). Everything is checked before anything is
 * written: the target folder, every entity's existence (404 naming the first missing), the folder rules
 * (422 into itself or a descendant; 409 a name taken in the target). The reads are at most three round
 * trips for any mix of up to 100 entities: the folder tree (one Query) and the first BatchGetItem of
 * KIND_PLACEMENT (id pointers and id-keyed heads) in parallel, then the BatchGetItem of the named heads.
 *
 * Then the writes: one conditional UpdateItem per entity, setting its kind's folder attribute on its
 * head (BatchWriteItem cannot update, and putting back a head read a moment ago would undo a concurrent
 * edit of it), at most WRITES_IN_FLIGHT at once. A folder moved first claims its name in the target;
 * the claims come before any entity moves, so a name lost to a racing create still moves nothing.
 */
export const WRITES_IN_FLIGHT = 16;

const refKey = (ref: EntityReference) => `${ref.type}#${ref.id}`;
const keyText = (key: TableKey) => `${key.PK}\u0000${key.SK}`;

export const entityNotFound = (ref: EntityReference) => notFound(`${ref.type} ${ref.id} not found`);

/** An entity of a kind of KIND_PLACEMENT, found: its head's key. */
interface FoundHead {
  kind: PlacedKind;
  id: EntityId;
  key: TableKey;
}

/**
 * The heads of the entities (folders and the kinds that cannot exist here aside), in two BatchGetItems;
 * by reference key, absent when the entity does not exist. `alongside` runs with the first batch.
 */
export async function findHeads<T>(
  workspaceId: number,
  refs: readonly { kind: PlacedKind; id: EntityId; ref: string }[],
  alongside: () => Promise<T>,
): Promise<{ heads: Map<string, FoundHead>; other: T }> {
  const firstKeys = new Map<string, TableKey>();
  for (const { kind, id } of refs) {
    const key = KIND_PLACEMENT[kind].firstKey(workspaceId, id);
    if (key) firstKeys.set(keyText(key), key);
  }
  const [firstItems, other] = await Promise.all([
    firstKeys.size ? batchGetItems([...firstKeys.values()], { consistent: true }) : [],
    alongside(),
  ]);
  const firstFound = new Map(firstItems.map((item) => [keyText(item as TableKey), item]));
  const headKeyOf = new Map<string, TableKey>();
  const named = new Map<string, TableKey>();
  for (const { kind, id, ref } of refs) {
    const first = KIND_PLACEMENT[kind].firstKey(workspaceId, id);
    const item = first && firstFound.get(keyText(first));
    const headKey = item && KIND_PLACEMENT[kind].headKey(workspaceId, item);
    if (!headKey) continue;
    headKeyOf.set(ref, headKey);
    if (keyText(headKey) !== keyText(first)) named.set(keyText(headKey), headKey);
  }
  const namedItems = named.size ? await batchGetItems([...named.values()], { consistent: true }) : [];
  const heads = new Map([
    ...firstFound,
    ...namedItems.map((item) => [keyText(item as TableKey), item] as const),
  ]);
  const found = new Map<string, FoundHead>();
  for (const { kind, id, ref } of refs) {
    const key = headKeyOf.get(ref);
    const head = key && heads.get(keyText(key));
    if (key && head && KIND_PLACEMENT[kind].isLive(head, id)) found.set(ref, { kind, id, key });
  }
  return { heads: found, other };
}

/**
 * Sets the entity's folder, if it is still the live entity read (and, given `from`, still in that
 * folder: a cascade leaves an entity moved out of the subtree meanwhile where it was put); false when
 * it no longer is.
 */
export function writePlacement(head: FoundHead, folderId: number | null, from?: number): Promise<boolean> {
  const placement = KIND_PLACEMENT[head.kind];
  const attribute = kindSpec(head.kind).folderAttribute as string;
  const live = placement.liveCondition;
  return updateItem(head.key, {
    set: { [attribute]: folderId },
    condition: from === undefined ? live.condition : `(${live.condition}) AND #${attribute} = :from`,
    values: { ...live.values(head.id), ...(from === undefined ? {} : { ':from': from }) },
  });
}

export interface MovePlan {
  target: number | null;
  folders: FolderRecord[];
  heads: FoundHead[];
  /** Distinct entities moved (a PROMPT and a SNIPPET of one id are one). */
  count: number;
}

const placed = (kind: EntityKind): kind is PlacedKind => kind in KIND_PLACEMENT;

/** Every check and read of a move; throws its 4xx before anything is written. */
export async function planMove(workspaceId: number, body: MoveEntitiesBody): Promise<MovePlan> {
  checkWorkspaceParam(body.workspace_id, workspaceId);
  const target = body.folder_id ?? null;
  const refs = [...new Map(body.entities.map((ref) => [refKey(ref), ref])).values()];
  const kinds = refs.map((ref) => kindOfFolderType(ref.type) as EntityKind);
  const needTree = target !== null || kinds.includes('folder');
  const { heads, other: tree } = await findHeads(
    workspaceId,
    refs.flatMap((ref, i) => {
      const kind = kinds[i]!;
      return placed(kind) ? [{ kind, id: ref.id, ref: refKey(ref) }] : [];
    }),
    async (): Promise<FolderTree | undefined> => (needTree ? readTree(workspaceId) : undefined),
  );
  if (target !== null && !tree?.get(target)) throw folderNotFound(target);

  const folders: FolderRecord[] = [];
  const found: FoundHead[] = [];
  refs.forEach((ref, i) => {
    const kind = kinds[i]!;
    if (kind === 'folder') {
      const folder = tree?.get(ref.id as number);
      if (!folder) throw entityNotFound(ref);
      folders.push(folder);
    } else {
      const head = heads.get(refKey(ref));
      if (!head || kindSpec(kind).unsupported) throw entityNotFound(ref);
      found.push(head);
    }
  });
  if (target !== null)
    for (const folder of folders)
      if (tree!.isWithin(target, folder.id)) throw intoItself(folder.id, target, 'folder_id');
  // Folders changing parent must find their name free there (moved folders count as gone).
  const moving = new Set(folders.map((folder) => folder.id));
  const arriving = new Map<string, number>();
  for (const folder of folders) {
    if (tree!.parentOf(folder) === target) continue;
    const holder = tree!.childNamed(target, folder.name);
    if ((holder && !moving.has(holder.id)) || arriving.has(folder.name)) throw nameTaken(folder.name, target);
    arriving.set(folder.name, folder.id);
  }
  // One head written once however many references name it (a prompt as PROMPT and SNIPPET).
  const distinct = [...new Map(found.map((head) => [keyText(head.key), head])).values()];
  return { target, folders, heads: distinct, count: folders.length + distinct.length };
}

/** The writes of a planned move; answers how many entities moved. */
export async function applyMove(workspaceId: number, plan: MovePlan): Promise<number> {
  const { target } = plan;
  const relocating = plan.folders.filter((folder) => folder.parent_id !== target);
  const claimed: FolderRecord[] = [];
  try {
    await forEachLimited(relocating, WRITES_IN_FLIGHT, async (folder) => {
      await claimFolderName(workspaceId, target, folder.name, folder.id);
      claimed.push(folder);
    });
  } catch (error) {
    await forEachLimited(claimed, WRITES_IN_FLIGHT, (folder) =>
      releaseFolderName(workspaceId, target, folder.name, folder.id),
    );
    throw error;
  }
  let moved = plan.folders.length - relocating.length;
  const writes: (() => Promise<boolean>)[] = [
    ...relocating.map((folder) => async () => {
      const done = await writeFolderPlace(workspaceId, folder, { name: folder.name, parent_id: target });
      // The claim not needed any more: the old one when moved, the new one when the folder changed meanwhile.
      await (done
        ? releaseFolderName(workspaceId, folder.parent_id, folder.name, folder.id)
        : releaseFolderName(workspaceId, target, folder.name, folder.id));
      return done;
    }),
    ...plan.heads.map((head) => () => writePlacement(head, target)),
  ];
  await forEachLimited(writes, WRITES_IN_FLIGHT, async (write) => {
    if (await write()) moved++;
  });
  return moved;
}

/** POST /api/public/v2/folders/entities. */
export async function moveEntities(workspaceId: number, body: MoveEntitiesBody) {
  const move = async () => ({ moved_count: await applyMove(workspaceId, await planMove(workspaceId, body)) });
  // Folders change parent under the tree lease (no cycle from two racing moves); other kinds need none.
  return body.entities.some((ref) => ref.type === 'FOLDER') ? withTreeLease(workspaceId, move) : move();
}

/** The permission types a move needs: edit on each kind named (ENTITY_KINDS' permission types). */
export const moveKinds = (refs: readonly EntityReference[]): EntityKind[] => [
  ...new Set(refs.map((ref) => kindOfFolderType(ref.type) as EntityKind)),
];
