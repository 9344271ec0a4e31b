import { type EventActor, emitEvents } from '#shared/events/emit.ts';
import { logger } from '#shared/platform/logger.ts';
import type { FileDigest } from './collection.ts';

/** What a version changed against the one before it, by path (each list sorted). */
export interface FileChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

export function diffManifests(
  before: Record<string, FileDigest>,
  after: Record<string, FileDigest>,
): FileChanges {
  const added: string[] = [];
  const modified: string[] = [];
  for (const [path, entry] of Object.entries(after)) {
    const old = Object.hasOwn(before, path) ? before[path] : undefined;
    if (!old) added.push(path);
    else if (old.sha256 !== entry.sha256) modified.push(path);
  }
  const deleted = Object.keys(before).filter((path) => !Object.hasOwn(after, path));
  return { added: added.sort(), modified: modified.sort(), deleted: deleted.sort() };
}

export const changesNothing = (changes: FileChanges) =>
  changes.added.length + changes.modified.length + changes.deleted.length === 0;

/**
 * Reports `skill_collection_files_changed`. The version is already stored, so a failure to record the
 * event is logged, not answered: a client retrying would make another version.
 */
export async function emitFilesChanged(
  workspaceId: number,
  details: { collectionId: string; name: string; versionNumber: number; changes: FileChanges },
  actor: EventActor,
): Promise<void> {
  await emitEvents(
    workspaceId,
    [
      {
        type: 'skill_collection_files_changed',
        details: {
          skill_collection_id: details.collectionId,
          skill_collection_name: details.name,
          version_number: details.versionNumber,
          ...details.changes,
        },
        key: `skill_collection:${details.collectionId}:v${details.versionNumber}`,
      },
    ],
    actor,
  ).catch((error: unknown) => {
    logger.error('Skill collection event not recorded', { workspaceId, error: error as Error });
  });
}
