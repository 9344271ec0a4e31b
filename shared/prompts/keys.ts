import { createHash } from 'node:crypto';

/**
 * Table keys of the prompt registry (access patterns in docs/prompts.md). Every key starts with the
 * workspace, so a lookup made with one workspace's id can never reach another's items.
 *
 * One partition per template name holds its head item and every version:
 *
 *   W#<ws>#P#<name>  ~HEAD            id, name, tags, folder, labels (map), has_external_ids
 *   W#<ws>#P#<name>  V#0000000001 ... one item per version
 *   W#<ws>#P#<name>  L#<label>        a copy of the version the label was last moved to (see below)
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

export const templatePk = (workspaceId: number, name: string) => `W#${workspaceId}#P#${nameKey(name)}`;

export const versionSk = (number: number) =>
  `${VERSION_PREFIX}${String(number).padStart(VERSION_DIGITS, '0')}`;

export const headKey = (workspaceId: number, name: string) => ({
  PK: templatePk(workspaceId, name),
  SK: HEAD_SK,
});

export const versionKey = (workspaceId: number, name: string, number: number) => ({
  PK: templatePk(workspaceId, name),
  SK: versionSk(number),
});

/**
 * A copy of the version a label was last moved to, read together with the head so that a read by label
 * is one round trip. The head stays the only record of where a label points: a reader uses the copy only
 * when it is of the version the head names (versions are immutable, so the copy is then exact).
 */
export const labelCopyKey = (workspaceId: number, name: string, label: string) => ({
  PK: templatePk(workspaceId, name),
  SK: `${LABEL_COPY_PREFIX}${label}`,
});

/** Template id -> name, written before the head that makes the template visible. */
export const templateIdKey = (workspaceId: number, templateId: number) => ({
  PK: `W#${workspaceId}#PID#${templateId}`,
  SK: 'PID',
});

/** Label id -> (template name, label name), written before the head update that creates the label. */
export const labelIdKey = (workspaceId: number, labelId: number) => ({
  PK: `W#${workspaceId}#PL#${labelId}`,
  SK: 'PL',
});

/** GSI1 of the head items: every template of a workspace, in creation order. */
export const templatesIndexPk = (workspaceId: number) => `W#${workspaceId}#PROMPTS`;
export const templatesIndexSk = (createdAt: number, templateId: number) =>
  `${String(createdAt).padStart(15, '0')}#${String(templateId).padStart(16, '0')}`;
