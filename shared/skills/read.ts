import { listExternalIds } from '#shared/external-ids/external-ids.ts';
import { notFound } from '#shared/platform/errors.ts';
import { lookupByName, type Selector } from '#shared/versions/read.ts';
import { loadManifest, readFiles } from './blobs.ts';
import { headById, isUuid, type SkillHead, skillStore } from './collection.ts';
import { writeSkillArchive } from './files.ts';
import { headByName } from './names.ts';
import { toCollection, toVersion } from './views.ts';

/** Reading skill collections: by UUID or by name (a collection's root path is its name). */

export const collectionNotFound = (identifier: string) =>
  notFound(`Skill collection ${identifier} not found`);

/** The collection an identifier names (a UUID first, then a name), or a 404. */
export async function requireCollection(workspaceId: number, identifier: string): Promise<SkillHead> {
  const head =
    (isUuid(identifier) ? await headById(workspaceId, identifier) : undefined) ??
    (await headByName(workspaceId, identifier));
  if (!head) throw collectionNotFound(identifier);
  return head;
}

/** The selected version (latest by default) with its head, or a 404 naming what is missing. */
export async function readCollectionVersion(workspaceId: number, identifier: string, select: Selector) {
  const known = await requireCollection(workspaceId, identifier);
  const result = await lookupByName(skillStore, workspaceId, known.name, select);
  if ('found' in result) return result.found;
  if (result.missing === 'version')
    throw notFound(`Version ${select.version} of skill collection ${identifier} not found`);
  if (result.missing === 'label')
    throw notFound(`Label ${select.label} of skill collection ${identifier} not found`);
  throw collectionNotFound(identifier);
}

/**
 * GET /api/public/v2/skill-collections/{identifier}: the version's files (path -> content) with the
 * collection, or (`zip`) the files as a ZIP archive.
 */
export async function getCollection(
  workspaceId: number,
  identifier: string,
  select: Selector,
  format: 'zip' | 'json' = 'json',
) {
  const { head, version } = await readCollectionVersion(workspaceId, identifier, select);
  const files = await readFiles(await loadManifest(version));
  if (format === 'zip') {
    return { zip: await writeSkillArchive(files), name: head.collection_name };
  }
  const pinned = select.version !== undefined || select.label !== undefined;
  const [latest, externalIds] = await Promise.all([
    pinned ? skillStore.getLatestVersion(workspaceId, head.name) : version,
    head.has_external_ids ? listExternalIds(workspaceId, 'skill_collection', head.id) : [],
  ]);
  return {
    json: {
      success: true as const,
      skill_collection: toCollection(workspaceId, head, latest?.number ?? version.number, externalIds),
      files: Object.fromEntries(files.map((file) => [file.path, file.content])),
      version: toVersion(workspaceId, version, head),
    },
  };
}
