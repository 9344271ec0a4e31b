import { createHash } from 'node:crypto';

/**
 * Table keys of a versioned entity (a kind's `tag`, see kind.ts; access patterns in docs/data-model.md).
 * Every key starts with the workspace, so a lookup made with one workspace's id never reaches another's.
 *
 * One partition per entity name holds its head item and every version:
 *
 *   W#<ws>#<tag>#<name>  ~HEAD            id, name, labels (map), has_external_ids, the kind's fields
 *   W#<ws>#<tag>#<name>  V#0000000001 ... one item per version
 *   W#<ws>#<tag>#<name>  L#<label>        a copy of the version the label was last moved to
 *   W#<ws>#<tag>ID#<id>  <tag>ID          entity id -> name
 *   W#<ws>#<tag>L#<id>   <tag>L           label id -> (name, label)
 *   GSI1 of the heads: W#<ws>#<listing>   <created_at>#<id>
 *
 * `~` sorts after `V`, so one descending Query from the top reads the head and then the latest version:
 * a by-name read is one round trip and "latest" is derived from the last version item, never stored.
 * Labels live in a map on the head, so a publish moves any number of them with one conditional update.
 */
export const HEAD_SK = '~HEAD';
export const VERSION_PREFIX = 'V#';
/** Sorts below the versions, so the Query from the top never meets a label copy. */
const LABEL_COPY_PREFIX = 'L#';
const VERSION_DIGITS = 10;

/** Names longer than this (in UTF-8 bytes) are keyed by their hash: DynamoDB keys stop at 2048 bytes. */
const MAX_NAME_KEY_BYTES = 1000;

function nameKey(name: string): string {
  return Buffer.byteLength(name, 'utf8') <= MAX_NAME_KEY_BYTES
    ? name
    : `sha256:${createHash('sha256').update(name, 'utf8').digest('hex')}`;
}

export const versionSk = (number: number) =>
  `${VERSION_PREFIX}${String(number).padStart(VERSION_DIGITS, '0')}`;

export type TableKey = { PK: string; SK: string };

export function entityKeys({ tag, listing }: { tag: string; listing: string }) {
  const pk = (workspaceId: number, name: string) => `W#${workspaceId}#${tag}#${nameKey(name)}`;
  return {
    pk,
    head: (workspaceId: number, name: string): TableKey => ({ PK: pk(workspaceId, name), SK: HEAD_SK }),
    version: (workspaceId: number, name: string, number: number): TableKey => ({
      PK: pk(workspaceId, name),
      SK: versionSk(number),
    }),
    /**
     * A copy of the version a label was last moved to, read together with the head so that a read by
     * label is one round trip. The head stays the only record of where a label points: a reader uses
     * the copy only when it is of the version the head names (versions are immutable).
     */
    labelCopy: (workspaceId: number, name: string, label: string): TableKey => ({
      PK: pk(workspaceId, name),
      SK: `${LABEL_COPY_PREFIX}${label}`,
    }),
    /** Entity id -> name, written before the head that makes the entity visible. */
    entityId: (workspaceId: number, id: number): TableKey => ({
      PK: `W#${workspaceId}#${tag}ID#${id}`,
      SK: `${tag}ID`,
    }),
    /** Label id -> (name, label), written before the head update that creates the label. */
    labelId: (workspaceId: number, labelId: number): TableKey => ({
      PK: `W#${workspaceId}#${tag}L#${labelId}`,
      SK: `${tag}L`,
    }),
    /** GSI1 of the head items: every entity of the kind in a workspace, in creation order. */
    indexPk: (workspaceId: number) => `W#${workspaceId}#${listing}`,
    indexSk: (createdAt: number, id: number) =>
      `${String(createdAt).padStart(15, '0')}#${String(id).padStart(16, '0')}`,
  };
}
export type EntityKeys = ReturnType<typeof entityKeys>;
