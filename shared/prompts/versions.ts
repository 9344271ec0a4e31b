import { notFound } from '#shared/platform/errors.ts';
import { type Page, toPage } from '#shared/platform/pagination.ts';
import { findHead } from './read.ts';
import type { TemplateHead, VersionRecord } from './records.ts';
import { promptStore } from './repository.ts';
import { toVersionSummary } from './views.ts';

/**
 * GET /prompt-templates/{identifier}/versions: a template's versions newest first, as summaries (no
 * template body). Version numbers are dense (1..N, see shared/versions/publish.ts), so page p is the
 * range of numbers it covers: one Query of exactly those items, and `total` is the latest number, never
 * a count.
 */
export type VersionSummary = ReturnType<typeof toVersionSummary>;

export async function listVersions(
  workspaceId: number,
  identifier: string,
  page: number,
  perPage: number,
): Promise<Page<VersionSummary>> {
  const head = await findHead(workspaceId, identifier);
  if (!head) throw notFound(`Prompt template ${identifier} not found`);
  const latest = await promptStore.getLatestVersion(workspaceId, head.name);
  const total = latest?.number ?? 0;
  const highest = total - (page - 1) * perPage;
  const versions =
    highest >= 1
      ? await promptStore.versionsBetween(workspaceId, head.name, Math.max(1, highest - perPage + 1), highest)
      : [];
  const labels = labelsByVersion(head);
  return toPage(
    versions.map((version: VersionRecord) => toVersionSummary(version, labels.get(version.number) ?? [])),
    page,
    perPage,
    total,
  );
}

/** The head's label names per version number, each list in name order. */
function labelsByVersion(head: TemplateHead): Map<number, string[]> {
  const byVersion = new Map<number, string[]>();
  for (const name of Object.keys(head.labels).sort()) {
    const number = head.labels[name]!.version_number;
    byVersion.set(number, [...(byVersion.get(number) ?? []), name]);
  }
  return byVersion;
}
