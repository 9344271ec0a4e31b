import { requireGroup } from '#shared/datasets/groups.ts';
import type { DatasetRecord } from '#shared/datasets/records.ts';
import { isDraft } from '#shared/datasets/records.ts';
import { queryDatasets } from '#shared/datasets/repository.ts';
import { badRequest, notFound } from '#shared/platform/errors.ts';
import { MAX_REPORT_NAME_LENGTH } from './schemas.ts';

export const NO_PUBLISHED_VERSION = 'Dataset must have at least one non-draft version';

/**
 * The published dataset version a report reads: the group's version `versionNumber`, or its latest
 * published one when absent. A 404 for a group of another workspace (or none) and for an unknown
 * version number; a 400 when the group has no published version yet (a draft only). One GetItem of the
 * group and one Query of its datasets.
 */
export async function publishedVersion(
  workspaceId: number,
  groupId: number,
  versionNumber?: number | null,
): Promise<DatasetRecord> {
  await requireGroup(workspaceId, groupId);
  const published = (await queryDatasets(workspaceId, { groupId })).filter((dataset) => !isDraft(dataset));
  if (published.length === 0) throw badRequest(NO_PUBLISHED_VERSION, 'no_published_version');
  if (versionNumber == null) {
    return published.reduce((latest, dataset) =>
      dataset.versionNumber > latest.versionNumber ? dataset : latest,
    );
  }
  const found = published.find((dataset) => dataset.versionNumber === versionNumber);
  if (!found) throw notFound(`Dataset group ${groupId} has no version ${versionNumber}`);
  return found;
}

/**
 * The name of a report over a version of the group when none is given: `<group name> evaluation
 * <YYYY-MM-DD HH:MM:SS>`, the group's name shortened (never inside a surrogate pair) so that the whole
 * is a valid report name (at most MAX_REPORT_NAME_LENGTH).
 */
export function generatedName(groupName: string, now: Date): string {
  const suffix = ` evaluation ${now.toISOString().slice(0, 19).replace('T', ' ')}`;
  let prefix = '';
  for (const point of groupName) {
    if (prefix.length + point.length + suffix.length > MAX_REPORT_NAME_LENGTH) break;
    prefix += point;
  }
  return `${prefix}${suffix}`;
}
