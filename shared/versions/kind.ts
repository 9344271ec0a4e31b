import type { ExternalIdEntity } from '#shared/external-ids/external-ids.ts';
import type { IdKind } from '#shared/platform/ids.ts';

/**
 * Versioned entities with release labels (prompt templates, workflows, tools): what differs between
 * them. The table layout, the publish algorithm, labels and reads are shared (keys.ts, store.ts,
 * publish.ts, labels.ts, read.ts); a kind names its key tag, its id kinds, its external-id entity type,
 * the attribute names its stored items use and how a version is stored. Times are epoch milliseconds.
 */

/** Where a release label points; kept in the head's `labels` map under the label's name. */
export interface LabelEntryBase {
  id: number;
  version_number: number;
  created_at: number;
  updated_at: number;
}

/** The head item of an entity: what its versions share, and its labels. `X` are the kind's own fields. */
export type Head<L extends LabelEntryBase, X> = X & {
  id: number;
  name: string;
  created_at: number;
  updated_at: number;
  /** By label name; client-named keys, so read them with `labelOf` (never through the prototype). */
  labels: Record<string, L>;
  /** Set before the first external id is attached: tells readers whether listing mappings is worth a call. */
  has_external_ids: boolean;
};

/** What the module reads of a version. */
export interface VersionPlace {
  id: number;
  entityId: number;
  name: string;
  number: number;
  created_at: number;
}

export interface VersionKind<V, L extends LabelEntryBase, X> {
  /**
   * Key tag: the entity's partition is `W#<ws>#<tag>#<name>`, its id pointer `W#<ws>#<tag>ID#<id>`,
   * its label pointers `W#<ws>#<tag>L#<label id>`.
   */
  tag: string;
  /** GSI1 partition of the heads: `W#<ws>#<listing>`. */
  listing: string;
  ids: { entity: IdKind; version: IdKind; label: IdKind };
  externalIdEntity: ExternalIdEntity;
  /** How messages name the entity, e.g. "Prompt template". */
  noun: string;
  /** How messages name a label, e.g. "Prompt label". */
  labelNoun: string;
  /** Attribute of a label entry and of a label copy that holds the version id (e.g. `prompt_version_id`). */
  versionIdField: keyof L & string;
  /** Attribute of a label pointer item that holds the entity name (e.g. `prompt_name`). */
  nameField: string;
  placeOf(version: V): VersionPlace;
  /**
   * The name a list sorts by when it is not the partition's `name` (a kind keyed by a stable id whose
   * name is one of its own head fields and can change, like skill collections). Default: `name`.
   */
  listedName?(head: Head<L, X>): string;
  /** The kind's own head fields, from a head item. */
  headFields(item: Record<string, unknown>): X;
  /** The attributes a version item (and a label copy) stores the version in, and back. */
  encodeVersion(version: V): Record<string, unknown>;
  decodeVersion(item: Record<string, unknown>): V;
}

/** A kind whose versions are stored as one JSON attribute, `doc`. */
export const jsonDocVersions = <V>() => ({
  encodeVersion: (version: V) => ({ doc: JSON.stringify(version) }),
  decodeVersion: (item: Record<string, unknown>) => JSON.parse(item.doc as string) as V,
});

/** The label of that name, if the head has it (a label may be called `constructor`). */
export const labelOf = <L>(head: { labels: Record<string, L> }, label: string): L | undefined =>
  Object.hasOwn(head.labels, label) ? head.labels[label] : undefined;

/** The version id a label entry points at. */
export const labelVersionId = <L extends LabelEntryBase>(
  kind: { versionIdField: keyof L & string },
  entry: L,
) => entry[kind.versionIdField] as unknown as number;

/** A label entry of the kind. */
export const labelEntry = <L extends LabelEntryBase>(
  kind: { versionIdField: keyof L & string },
  base: LabelEntryBase,
  versionId: number,
): L => ({ ...base, [kind.versionIdField]: versionId }) as unknown as L;
