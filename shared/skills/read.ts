import { listExternalIds } from '#shared/external-ids/external-ids.ts';
import { ANSWER_BUDGET_BYTES, answerBytes, largestToOmit } from '#shared/platform/answer-limit.ts';
import { notFound, payloadTooLarge } from '#shared/platform/errors.ts';
import { isUuid } from '#shared/platform/schemas.ts';
import { lookupByName, type Selector } from '#shared/versions/read.ts';
import { writeSkillArchive } from './archive-write.ts';
import { loadManifest, readFiles } from './blobs.ts';
import { headById, type SkillHead, skillStore } from './collection.ts';
import type { SkillFile } from './files.ts';
import { headByName } from './names.ts';
import { toCollection, toVersion } from './views.ts';

/** Reading skill collections: by UUID or by name (a collection's root path is its name). */

/**
 * A collection holds up to 20 MiB of files, more than one answer carries: Lambda returns at most 6 MB,
 * in which a JSON body is escaped once more and a binary one is base64 (4/3 of its bytes). A JSON read
 * leaves the largest contents out past ANSWER_BUDGET_BYTES (naming them in `omitted_files`); a ZIP
 * over MAX_ZIP_ANSWER_BYTES is a 413. Either way never a 502.
 */
export const MAX_ZIP_ANSWER_BYTES = 4 * 1024 * 1024;

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
    const zip = await writeSkillArchive(files);
    if (zip.length > MAX_ZIP_ANSWER_BYTES)
      throw payloadTooLarge(
        `The ZIP of version ${version.number} of skill collection ${identifier} is ${zip.length} bytes; an answer holds at most ${MAX_ZIP_ANSWER_BYTES}`,
      );
    return { zip, name: head.collection_name };
  }
  const pinned = select.version !== undefined || select.label !== undefined;
  const [latest, externalIds] = await Promise.all([
    pinned ? skillStore.getLatestVersion(workspaceId, head.name) : version,
    head.has_external_ids ? listExternalIds(workspaceId, 'skill_collection', head.id) : [],
  ]);
  const answer = {
    success: true as const,
    skill_collection: toCollection(workspaceId, head, latest?.number ?? version.number, externalIds),
    files: Object.fromEntries(files.map((file) => [file.path, file.content])),
    version: toVersion(workspaceId, version, head),
  };
  return { json: withinAnswerLimit(answer, files) };
}

/**
 * The answer within ANSWER_BUDGET_BYTES: the largest contents left out first until it fits, each
 * named with its size in bytes in `omitted_files` (read them with `format=zip`).
 */
function withinAnswerLimit<T extends { files: Record<string, string> }>(
  answer: T,
  files: readonly SkillFile[],
  limit = ANSWER_BUDGET_BYTES,
): T & { omitted_files?: Record<string, number> } {
  const sizes = files.map((file) => Buffer.byteLength(file.content, 'utf8'));
  // Counted file by file (a `"path":"content",` each, escaped as Lambda's result carries it), never as
  // one string of up to 20 MiB escaped twice.
  const costs = files.map((file) => answerBytes(file.path) + answerBytes(file.content) + 4);
  const omitted = largestToOmit(
    costs,
    answerBytes({ ...answer, files: {} }) + costs.reduce((sum, cost) => sum + cost, 0),
    limit,
    (i) => answerBytes(files[i]!.path) + answerBytes(sizes[i]) + 4,
  );
  if (omitted.size === 0) return answer;
  return {
    ...answer,
    // Rebuilt with fromEntries: a path may be called `__proto__`.
    files: Object.fromEntries(
      files.filter((_, i) => !omitted.has(i)).map((file) => [file.path, file.content]),
    ),
    omitted_files: Object.fromEntries(
      files.flatMap((file, i) => (omitted.has(i) ? [[file.path, sizes[i]!]] : [])),
    ),
  };
}
