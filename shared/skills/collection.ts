import { isUuid } from '#shared/platform/schemas.ts';
import type { StoredJson } from '#shared/platform/stored-json.ts';
import { type Head, jsonDocVersions, type VersionKind } from '#shared/versions/kind.ts';
import { versionStore } from '#shared/versions/store.ts';

/**
 * Skill collections as a kind of the shared versioned entities (shared/versions): versions numbered
 * 1..N and release labels come from that module. Unlike prompts, workflows and tools, a collection is
 * keyed by its id, not its name: the module's partition "name" is the collection's UUID, so a rename
 * (PATCH) only changes a head field, and the client-facing name is kept in `collection_name` with a
 * name pointer for uniqueness and reads by name (names.ts).
 *
 *   W#<ws>#SK#<uuid>     ~HEAD          collection_name, root_path, provider, folder_id, is_deleted, ...
 *   W#<ws>#SK#<uuid>     V#0000000001   a version: its manifest (path -> size, sha256, S3 pack, offset)
 *   W#<ws>#SK#<uuid>     L#<label>      the copy of the version a release label points at
 *   W#<ws>#SKID#<n>      SKID           internal entity number -> uuid (the module's id pointer)
 *   W#<ws>#SKL#<n>       SKL            label id -> (uuid, label)
 *   W#<ws>#SKN#<name>    SKN            name -> uuid (names.ts)
 *   GSI1 of the heads: W#<ws>#SKILL_COLLECTIONS
 *
 * The module's integer entity id (`Head.id`) is internal: external-id mappings are kept under it, and
 * clients only ever see the UUID.
 */

/** A file's size in bytes and the sha256 of its UTF-8 bytes. */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** One file of a version: its digest and where its bytes are (an S3 pack object and the offset in it). */
export interface ManifestEntry extends FileDigest {
  key: string;
  offset: number;
}

/** Path -> entry, paths sorted. */
export type Manifest = Record<string, ManifestEntry>;

export interface SkillVersionRecord {
  /** The module's version id (internal). */
  id: number;
  /** The version's public id. */
  uuid: string;
  /** The collection's UUID (the module's partition name). */
  collection_id: string;
  /** The collection's internal entity number. */
  entity_id: number;
  number: number;
  commit_message: string | null;
  provider: string | null;
  root_path: string;
  /** The manifest, inline while small, else an S3 object (stored-json.ts). */
  manifest: StoredJson;
  file_paths: string[];
  created_by: number;
  user_email: string | null;
  /** Epoch milliseconds. */
  created_at: number;
}

export interface SkillLabelEntry {
  id: number;
  skill_collection_version_id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

export interface SkillHeadFields {
  collection_name: string;
  root_path: string;
  provider: string | null;
  folder_id: number | null;
  is_deleted: boolean;
  created_by: number;
  updated_by: number;
  /** The e-mail address of the creating key's user, when it had one (the list's created_by_email). */
  user_email: string | null;
}

export type SkillHead = Head<SkillLabelEntry, SkillHeadFields>;

export const SKILL_KIND: VersionKind<SkillVersionRecord, SkillLabelEntry, SkillHeadFields> = {
  tag: 'SK',
  listing: 'SKILL_COLLECTIONS',
  ids: {
    entity: 'skill_collection',
    version: 'skill_collection_version',
    label: 'skill_collection_label',
  },
  externalIdEntity: 'skill_collection',
  noun: 'Skill collection',
  labelNoun: 'Skill collection label',
  versionIdField: 'skill_collection_version_id',
  nameField: 'collection_id',
  placeOf: (version) => ({
    id: version.id,
    entityId: version.entity_id,
    name: version.collection_id,
    number: version.number,
    created_at: version.created_at,
  }),
  listedName: (head) => head.collection_name,
  headFields: (item) => ({
    collection_name: item.collection_name as string,
    root_path: item.root_path as string,
    provider: (item.provider as string | null | undefined) ?? null,
    folder_id: (item.folder_id as number | null | undefined) ?? null,
    is_deleted: item.is_deleted === true,
    created_by: item.created_by as number,
    updated_by: item.updated_by as number,
    user_email: (item.user_email as string | null | undefined) ?? null,
  }),
  ...jsonDocVersions<SkillVersionRecord>(),
};

export const skillStore = versionStore(SKILL_KIND);

/** A collection's head by its UUID (a deleted one is not there). */
export async function headById(workspaceId: number, id: string): Promise<SkillHead | undefined> {
  if (!isUuid(id)) return undefined;
  const head = await skillStore.getHead(workspaceId, id.toLowerCase());
  return head && !head.is_deleted ? head : undefined;
}
