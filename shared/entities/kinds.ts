import type { EntityType } from '#shared/platform/auth-context.ts';
import type { IdKind } from '#shared/platform/ids.ts';

/**
 * Every kind of entity a client names by id, listed once: the permission type a key needs for it
 * (auth-context's ENTITY_TYPES), its external-id type (shared/external-ids, when it carries external
 * ids), its folder type (when it can live in a folder: PromptLayer's FOLDER, PROMPT, SNIPPET,
 * WORKFLOW, DATASET, REPORT, AB_TEST, INPUT_VARIABLE_SET, plus our TOOL and SKILL_COLLECTION), the id
 * kind of its integer ids (shared/platform/ids.ts) and the attribute under which its stored head keeps
 * its folder. The external-id types and folder types are derived from this table, never listed again.
 *
 * This module is only words, and its derived values are marked pure, so a function bundles only what
 * it uses of it (most use its types alone: the features' declarations are literals typed by the kinds
 * below, `KindExternalId<'prompt'>`, and a unit test holds them equal). Whether an id exists is asked
 * through entityExists (exists.ts), which loads the features' stores and is bundled only by the
 * functions that ask it.
 */
export interface KindSpec {
  /** The permission type a key needs to read or edit entities of the kind. */
  readonly permission: EntityType;
  /** How messages name one entity of the kind, e.g. "prompt template". */
  readonly noun: string;
  /** Its type in external id mappings, when the kind carries external ids. */
  readonly externalId?: string;
  /** Its type in a folder's entity list and in folder moves, when the kind can live in a folder. */
  readonly folderType?: string;
  /** The counter its integer ids are drawn from, when it has integer ids of its own. */
  readonly idKind?: IdKind;
  /**
   * The attribute of its stored head holding the folder it lives in (null or absent: the root). The
   * features wrote it under two names before this registry; both stay, as renaming would need a data
   * migration.
   */
  readonly folderAttribute?: 'folder_id' | 'folderId' | 'parent_id';
  /**
   * Its folder type is ours, not in PromptLayer's enum (TOOL, SKILL_COLLECTION): a folder listing
   * answers the kind only when `filter_type` names it, so a client generated from PromptLayer's
   * document can read every listing it makes without that filter.
   */
  readonly folderTypeOnRequest?: true;
  /** Entities of the kind cannot exist here (PromptLayer has them): every id answers 404. */
  readonly unsupported?: true;
}

export const ENTITY_KINDS = {
  prompt: {
    permission: 'prompts',
    noun: 'prompt template',
    externalId: 'prompt_template',
    folderType: 'PROMPT',
    idKind: 'prompt',
    folderAttribute: 'folder_id',
  },
  /** A snippet is a prompt template that others include; it shares the prompts' ids and items. */
  snippet: {
    permission: 'prompts',
    noun: 'snippet',
    folderType: 'SNIPPET',
    idKind: 'prompt',
    folderAttribute: 'folder_id',
  },
  dataset: {
    permission: 'datasets',
    noun: 'dataset group',
    externalId: 'dataset_group',
    folderType: 'DATASET',
    idKind: 'dataset_group',
    folderAttribute: 'folderId',
  },
  tool: {
    permission: 'tools',
    noun: 'tool',
    externalId: 'tool',
    folderType: 'TOOL',
    folderTypeOnRequest: true,
    idKind: 'tool',
    folderAttribute: 'folder_id',
  },
  report: {
    permission: 'reports',
    noun: 'report',
    externalId: 'report',
    folderType: 'REPORT',
    idKind: 'report',
    folderAttribute: 'folderId',
  },
  workflow: {
    permission: 'workflows',
    noun: 'workflow',
    externalId: 'workflow',
    folderType: 'WORKFLOW',
    idKind: 'workflow',
    folderAttribute: 'folder_id',
  },
  skill_collection: {
    permission: 'skills',
    noun: 'skill collection',
    externalId: 'skill_collection',
    folderType: 'SKILL_COLLECTION',
    folderTypeOnRequest: true,
    folderAttribute: 'folder_id',
  },
  /** A folder lives in its parent folder. */
  folder: {
    permission: 'folders',
    noun: 'folder',
    externalId: 'folder',
    folderType: 'FOLDER',
    idKind: 'folder',
    folderAttribute: 'parent_id',
  },
  /** PromptLayer's A/B release tests of prompts: none exist here. */
  ab_test: { permission: 'prompts', noun: 'A/B test', folderType: 'AB_TEST', unsupported: true },
  /** PromptLayer's saved input variable sets of prompts: none exist here. */
  input_variable_set: {
    permission: 'prompts',
    noun: 'input variable set',
    folderType: 'INPUT_VARIABLE_SET',
    unsupported: true,
  },
} as const satisfies Record<string, KindSpec>;

type Kinds = typeof ENTITY_KINDS;
export type EntityKind = keyof Kinds;

/** Every kind, in the table's order. */
export const KIND_NAMES = /* @__PURE__ */ Object.keys(ENTITY_KINDS) as EntityKind[];

/** The spec of a kind, typed as the general shape (optional fields readable on every kind). */
export const kindSpec = (kind: EntityKind): KindSpec => ENTITY_KINDS[kind];

/** The permission types that are not entity kinds: resources a client does not name by kind and id. */
export const PERMISSION_ONLY_TYPES = [
  'request_logs',
  'webhooks',
  'provider_keys',
  'monitors',
  'env_vars',
] as const satisfies readonly EntityType[];

type ExternalIdOf<K extends EntityKind> = Kinds[K] extends { externalId: infer T extends string } ? T : never;
type FolderTypeOf<K extends EntityKind> = Kinds[K] extends { folderType: infer T extends string } ? T : never;

/** A kind's external-id type, for a feature's own declaration (`'report' satisfies KindExternalId<'report'>`). */
export type KindExternalId<K extends EntityKind> = ExternalIdOf<K>;
/** A kind's id kind, for a feature's own declaration. */
export type KindIdKind<K extends EntityKind> = Kinds[K] extends { idKind: infer T extends IdKind }
  ? T
  : never;

/** The external-id types, one per kind that carries external ids. */
export type ExternalIdType = { [K in EntityKind]: ExternalIdOf<K> }[EntityKind];
/** The folder types, one per kind that can live in a folder. */
export type FolderType = { [K in EntityKind]: FolderTypeOf<K> }[EntityKind];

export const EXTERNAL_ID_TYPES = /* @__PURE__ */ KIND_NAMES.flatMap(
  (kind) => kindSpec(kind).externalId ?? [],
) as readonly ExternalIdType[];
export const FOLDER_TYPES = /* @__PURE__ */ KIND_NAMES.flatMap(
  (kind) => kindSpec(kind).folderType ?? [],
) as readonly FolderType[];

/** The kind of an external-id type. */
export const kindOfExternalId = (type: ExternalIdType): EntityKind =>
  KIND_NAMES.find((kind) => kindSpec(kind).externalId === type) as EntityKind;

/** The kind of a folder type; undefined for a word that is none. */
export const kindOfFolderType = (type: string): EntityKind | undefined =>
  KIND_NAMES.find((kind) => kindSpec(kind).folderType === type);
