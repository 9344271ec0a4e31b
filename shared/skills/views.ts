import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { toIso } from '#shared/platform/time.ts';
import { sortedLabels } from '#shared/versions/labels.ts';
import type { SkillHead, SkillVersionRecord } from './collection.ts';

/** The answers of the skill-collection routes. */

export function toCollection(
  workspaceId: number,
  head: SkillHead,
  latestVersionNumber: number,
  externalIds: ExternalId[],
) {
  return {
    id: head.name,
    workspace_id: workspaceId,
    folder_id: head.folder_id,
    root_path: head.root_path,
    name: head.collection_name,
    provider: head.provider,
    is_deleted: head.is_deleted,
    created_by: head.created_by,
    created_at: toIso(head.created_at),
    updated_by: head.updated_by,
    updated_at: toIso(head.updated_at),
    latest_version_number: latestVersionNumber,
    external_ids: externalIds,
  };
}

/** A version; `release_label` is the first (by name) label on it, when the head has one there. */
export function toVersion(workspaceId: number, version: SkillVersionRecord, head: Pick<SkillHead, 'labels'>) {
  const [label] = sortedLabels(head)
    .filter(([, entry]) => entry.skill_collection_version_id === version.id)
    .map(([name]) => name);
  return {
    id: version.uuid,
    skill_collection_id: version.collection_id,
    workspace_id: workspaceId,
    number: version.number,
    version: version.number,
    root_path_at_version: version.root_path,
    provider: version.provider,
    file_paths: version.file_paths,
    commit_message: version.commit_message,
    release_label: label ?? null,
    archived: false,
    created_by: version.created_by,
    user_email: version.user_email,
    created_at: toIso(version.created_at),
  };
}
