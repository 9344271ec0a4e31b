import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { toIso } from '#shared/platform/time.ts';
import { sortedLabels } from '#shared/versions/labels.ts';
import type { ToolHead, ToolVersionRecord } from './registry.ts';

/** The answers of the tool registry routes. */

/** The labels of a head that point at a version. */
const labelsOn = (head: ToolHead, versionId: number) =>
  sortedLabels(head)
    .filter(([, entry]) => entry.tool_version_id === versionId)
    .map(([name]) => name);

/** A tool as lists show it (also `tool_registry` of the create and get answers). */
export function toToolEntry(
  workspaceId: number,
  head: ToolHead,
  latestVersionNumber: number,
  externalIds: ExternalId[],
) {
  return {
    id: head.id,
    name: head.name,
    description: head.description,
    workspace_id: workspaceId,
    folder_id: head.folder_id,
    latest_version_number: latestVersionNumber,
    created_at: toIso(head.created_at),
    updated_at: toIso(head.updated_at),
    external_ids: externalIds,
  };
}

/** A version; `releaseLabels` are the labels on it. */
export function toToolVersion(version: ToolVersionRecord, releaseLabels: string[]) {
  return {
    id: version.id,
    tool_id: version.tool_id,
    version_number: version.number,
    tool_definition: version.tool_definition,
    commit_message: version.commit_message,
    release_labels: releaseLabels,
    execution: version.execution ?? null,
    created_at: toIso(version.created_at),
  };
}

/** GET /api/public/v2/tool-registry/{identifier}. */
export function toToolView(
  workspaceId: number,
  head: ToolHead,
  version: ToolVersionRecord,
  latestVersionNumber: number,
  externalIds: ExternalId[],
) {
  return {
    success: true as const,
    tool_registry: {
      ...toToolEntry(workspaceId, head, latestVersionNumber, externalIds),
      labels: sortedLabels(head).map(([name, entry]) => ({
        id: entry.id,
        name,
        tool_version_id: entry.tool_version_id,
        version_number: entry.version_number,
        created_at: toIso(entry.created_at),
        updated_at: toIso(entry.updated_at),
      })),
      version: toToolVersion(version, labelsOn(head, version.id)),
      tool_definition: version.tool_definition,
    },
  };
}
