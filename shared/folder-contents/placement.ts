import { groupKey } from '#shared/datasets/keys.ts';
import { groupFromItem, queryDatasets } from '#shared/datasets/repository.ts';
import { ENTITY_KINDS, type EntityKind, type ExternalIdType } from '#shared/entities/kinds.ts';
import { type ExternalId, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { batchGetItems } from '#shared/platform/batch.ts';
import { isUuid } from '#shared/platform/schemas.ts';
import { promptStore } from '#shared/prompts/kind.ts';
import { listReportHeads } from '#shared/reports/head.ts';
import { reportKey } from '#shared/reports/keys.ts';
import { skillStore } from '#shared/skills/collection.ts';
import { toolStore } from '#shared/tools/registry.ts';
import type { TableKey } from '#shared/versions/keys.ts';
import type { Head, LabelEntryBase } from '#shared/versions/kind.ts';
import type { VersionStore } from '#shared/versions/store.ts';
import { workflowStore } from '#shared/workflows/registry.ts';

/**
 * Where each kind keeps its folder, for folder moves and folder listings: how to find an entity's
 * stored head in a batch, how to set its folder with one conditional UpdateItem, and how to list the
 * workspace's entities of the kind with their folders (through the kind's own heads listing).
 *
 * Finding heads costs at most two BatchGetItems for any mix of kinds: the first reads the id pointers
 * of the kinds whose heads are keyed by name (prompts, snippets, workflows, tools: `<tag>ID#<id>` ->
 * name) together with the heads of the kinds keyed by id (dataset groups, reports, skill collections by
 * their UUID); the second reads
 * the heads the pointers name. Folders (their own module: one Query of the tree) and the kinds that
 * cannot exist here are not in this table.
 */
type Item = Record<string, unknown>;

/** An entity of a kind as a folder listing needs it. Times in epoch milliseconds. */
export interface PlacedEntity {
  id: number | string;
  name: string;
  created_at: number;
  updated_at: number;
  folder_id: number | null;
  user_email: string | null;
  /** Whether to ask the mappings index for its external ids (false: it has none). */
  has_external_ids: boolean;
  /** The integer its external ids are stored under, when its id is not one (a skill collection's UUID). */
  external_id_owner?: number;
  /** Type-specific details (include_metadata), read only when asked for. */
  metadata?(): Promise<Record<string, unknown>>;
}

export type EntityId = number | string;

export interface KindPlacement {
  /** The key read in the first batch for that id; undefined for an id no entity of the kind can have. */
  firstKey(workspaceId: number, id: EntityId): TableKey | undefined;
  /**
   * The head's key, given the item the first batch found: the same key when the first item is the
   * head, the named head's key when it was an id pointer; undefined when there is no such entity.
   */
  headKey(workspaceId: number, firstItem: Item): TableKey | undefined;
  /** Whether the head item read is the live entity of that id. */
  isLive(head: Item, id: EntityId): boolean;
  /** The condition (items.ts form) under which the folder write applies: still that live entity. */
  liveCondition: { condition: string; values(id: EntityId): Item };
  /** The kind's entities in the workspace, each with its folder. */
  list(workspaceId: number): Promise<PlacedEntity[]>;
  /** Its external-id type, when it carries external ids. */
  externalIdType?: ExternalIdType;
}

export type PlacedKind = Exclude<EntityKind, 'folder' | 'ab_test' | 'input_variable_set'>;

const positiveId = (id: EntityId): id is number =>
  typeof id === 'number' && Number.isSafeInteger(id) && id > 0;

/** A kind of the shared versions module: heads keyed by name, found through their id pointer. */
function versioned<V, L extends LabelEntryBase, X extends { folder_id: number | null }>(
  store: VersionStore<V, L, X>,
  options: { metadata?: (latest: V) => Record<string, unknown> } = {},
): KindPlacement {
  return {
    firstKey: (ws, id) => (positiveId(id) ? store.keys.entityId(ws, id) : undefined),
    headKey: (ws, pointer) =>
      typeof pointer.name === 'string' ? store.keys.head(ws, pointer.name) : undefined,
    isLive: (head, id) => head.id === id,
    liveCondition: { condition: '#id = :id', values: (id) => ({ ':id': id }) },
    externalIdType: store.kind.externalIdEntity,
    list: async (ws) => (await store.listHeads(ws)).map((head) => placedHead(store, ws, head, options)),
  };
}

/** A head of a versioned kind as a folder listing shows it (`as`: its client-facing id and name). */
function placedHead<V, L extends LabelEntryBase, X extends { folder_id: number | null }>(
  store: VersionStore<V, L, X>,
  ws: number,
  head: Head<L, X>,
  options: { metadata?: (latest: V) => Record<string, unknown> },
  as: { id: EntityId; name: string } = { id: head.id, name: head.name },
): PlacedEntity {
  return {
    ...as,
    created_at: head.created_at,
    updated_at: head.updated_at,
    folder_id: head.folder_id ?? null,
    user_email: (head as { user_email?: string | null }).user_email ?? null,
    has_external_ids: head.has_external_ids,
    external_id_owner: head.id,
    async metadata() {
      const latest = await store.getLatestVersion(ws, head.name);
      const latestNumber = latest === undefined ? null : store.kind.placeOf(latest).number;
      return {
        latest_version_number: latestNumber,
        ...(latest === undefined ? {} : options.metadata?.(latest)),
      };
    },
  };
}

/**
 * Skill collections: a kind of the versions module keyed by its UUID (the head is read directly, no
 * pointer), listed under its UUID and collection name; a deleted one is not there.
 */
const skillCollections: KindPlacement = {
  firstKey: (ws, id) =>
    typeof id === 'string' && isUuid(id) ? skillStore.keys.head(ws, id.toLowerCase()) : undefined,
  headKey: (_ws, head) => ({ PK: head.PK as string, SK: head.SK as string }),
  isLive: (head) => head.is_deleted !== true,
  liveCondition: {
    condition: 'attribute_exists(#id) AND (attribute_not_exists(#is_deleted) OR #is_deleted = :false)',
    values: () => ({ ':false': false }),
  },
  externalIdType: skillStore.kind.externalIdEntity,
  async list(ws) {
    const heads = await skillStore.listHeads(ws);
    return heads
      .filter((head) => !head.is_deleted)
      .map((head) => placedHead(skillStore, ws, head, {}, { id: head.name, name: head.collection_name }));
  },
};

/** A kind whose head is keyed by its id, read directly in the first batch. */
function byId(
  key: (ws: number, id: number) => TableKey,
  rest: Pick<KindPlacement, 'isLive' | 'liveCondition' | 'list' | 'externalIdType'>,
): KindPlacement {
  return {
    firstKey: (ws, id) => (positiveId(id) ? key(ws, id) : undefined),
    headKey: (_ws, head) => ({ PK: head.PK as string, SK: head.SK as string }),
    ...rest,
  };
}

const prompts = versioned(promptStore, {
  metadata: (latest) => ({ type: latest.prompt_template.type ?? null }),
});

/** Dataset groups, listed through the workspace's datasets (a group is listed while it has one). */
async function listDatasetGroups(ws: number): Promise<PlacedEntity[]> {
  const datasets = await queryDatasets(ws, 'workspace');
  const updated = new Map<number, number>();
  for (const dataset of datasets)
    updated.set(dataset.groupId, Math.max(updated.get(dataset.groupId) ?? 0, dataset.updatedAt));
  const items = await batchGetItems([...updated.keys()].map((id) => groupKey(ws, id)));
  return items.map((item) => {
    const group = groupFromItem(item);
    return {
      id: group.id,
      name: group.name,
      created_at: group.createdAt,
      updated_at: Math.max(group.createdAt, updated.get(group.id) ?? 0),
      folder_id: group.folderId,
      user_email: null,
      has_external_ids: true,
      metadata: async () => ({
        isDraft: group.lastVersion === 0,
        latest_version_number: group.lastVersion === 0 ? null : group.lastVersion,
      }),
    };
  });
}

async function listReports(ws: number): Promise<PlacedEntity[]> {
  const heads = await listReportHeads(ws);
  return heads
    .filter((report) => !report.deleted && report.parentReportId === null)
    .map((report) => ({
      id: report.id,
      name: report.name,
      created_at: Date.parse(report.createdAt),
      updated_at: Date.parse(report.updatedAt),
      folder_id: report.folderId,
      user_email: report.userEmail ?? null,
      has_external_ids: report.hasExternalIds === true,
      metadata: async () => ({}),
    }));
}

export const KIND_PLACEMENT: Readonly<Record<PlacedKind, KindPlacement>> = {
  prompt: prompts,
  // A snippet is a prompt template: moved as one; listed once, as its PROMPT.
  snippet: { ...prompts, list: async () => [] },
  workflow: versioned(workflowStore),
  tool: versioned(toolStore),
  dataset: byId(groupKey, {
    isLive: () => true,
    liveCondition: { condition: 'attribute_exists(#id)', values: () => ({}) },
    list: listDatasetGroups,
    externalIdType: ENTITY_KINDS.dataset.externalId,
  }),
  report: byId(reportKey, {
    isLive: (head) => head.deleted !== true,
    liveCondition: {
      condition: 'attribute_exists(#id) AND (attribute_not_exists(#deleted) OR #deleted = :false)',
      values: () => ({ ':false': false }),
    },
    list: listReports,
    externalIdType: ENTITY_KINDS.report.externalId,
  }),
  skill_collection: skillCollections,
};

/** The number an entity's external ids are stored under (its id, or a skill collection's internal number). */
export const externalIdOwner = (entity: PlacedEntity): EntityId => entity.external_id_owner ?? entity.id;

/** The external ids of a listed entity (none asked for when it has none). */
export async function placedExternalIds(
  workspaceId: number,
  kind: PlacedKind,
  entity: PlacedEntity,
): Promise<ExternalId[]> {
  const type = KIND_PLACEMENT[kind].externalIdType;
  const owner = externalIdOwner(entity);
  if (!type || !entity.has_external_ids || typeof owner !== 'number') return [];
  return listExternalIds(workspaceId, type, owner);
}
