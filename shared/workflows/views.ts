import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { toIso } from '#shared/platform/time.ts';
import { sortedLabels } from '#shared/versions/labels.ts';
import type { WorkflowHead, WorkflowVersionRecord } from './registry.ts';

/** The answers of the workflow definition routes, field for field as the reference names them. */

/** The labels of a head that point at a version. */
const labelsOn = (head: WorkflowHead, versionId: number) =>
  sortedLabels(head)
    .filter(([, entry]) => entry.workflow_version_id === versionId)
    .map(([name]) => name);

/** A workflow as lists show it (also `workflow` of GET /workflows/{workflow_id_or_name}). */
export function toWorkflowSummary(
  workspaceId: number,
  head: WorkflowHead,
  latestVersionNumber: number | null,
  externalIds: ExternalId[],
) {
  return {
    id: head.id,
    name: head.name,
    workspace_id: workspaceId,
    folder_id: head.folder_id,
    is_deleted: false,
    user_id: head.user_id ?? null,
    latest_version_number: latestVersionNumber,
    release_labels: sortedLabels(head).map(([name]) => name),
    external_ids: externalIds,
    created_at: toIso(head.created_at),
    updated_at: toIso(head.updated_at),
  };
}

/** POST and PATCH /rest/workflows (201). */
export function toCreatedView(
  version: WorkflowVersionRecord,
  releaseLabels: string[],
  externalIds: ExternalId[],
  baseVersion: number | null,
) {
  return {
    success: true as const,
    workflow_id: version.workflow_id,
    workflow_name: version.workflow_name,
    workflow_version_id: version.id,
    version_number: version.number,
    base_version: baseVersion,
    release_labels: releaseLabels,
    nodes: version.nodes.map(({ id, name, node_type, is_output_node }) => ({
      id,
      name,
      node_type,
      is_output_node,
    })),
    required_input_variables: version.required_input_variables,
    external_ids: externalIds,
  };
}

/** GET /workflows/{workflow_id_or_name}. */
export function toWorkflowVersionView(
  workspaceId: number,
  head: WorkflowHead,
  version: WorkflowVersionRecord,
  latestVersionNumber: number | null,
  externalIds: ExternalId[],
) {
  return {
    success: true as const,
    workflow_id: head.id,
    workflow_name: head.name,
    workflow: toWorkflowSummary(workspaceId, head, latestVersionNumber, externalIds),
    version: version.number,
    version_number: version.number,
    workflow_version_id: version.id,
    commit_message: version.commit_message,
    required_input_variables: version.required_input_variables,
    release_labels: labelsOn(head, version.id),
    created_at: toIso(version.created_at),
    nodes: version.nodes.map((node) => ({ ...node, workflow_version_id: version.id })),
    edges: version.edges,
    external_ids: externalIds,
  };
}

/** GET /workflows/{workflow_id_or_name}/labels. */
export function toWorkflowLabelsView(head: WorkflowHead) {
  return {
    success: true as const,
    release_labels: sortedLabels(head).map(([name, entry]) => ({
      release_label: name,
      release_label_id: entry.id,
      workflow_version_id: entry.workflow_version_id,
      workflow_version_number: entry.version_number,
    })),
  };
}
