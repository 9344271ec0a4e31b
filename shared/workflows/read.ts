import { listExternalIds } from '#shared/external-ids/external-ids.ts';
import { notFound } from '#shared/platform/errors.ts';
import { findHead, readVersion, type Selector } from '#shared/versions/read.ts';
import { workflowStore } from './registry.ts';
import { toWorkflowLabelsView, toWorkflowVersionView } from './views.ts';

/**
 * GET /workflows/{workflow_id_or_name}: a version (by number, label, or the latest) with its nodes and
 * edges. One round trip for the version (two by id, the first once per container); one more for the
 * latest version number when another was asked for, and one for the external ids when there are any.
 */
export async function getWorkflow(workspaceId: number, identifier: string, select: Selector) {
  const { head, version } = await readVersion(workflowStore, workspaceId, identifier, select);
  const pinned = select.version !== undefined || select.label !== undefined;
  const [latest, externalIds] = await Promise.all([
    pinned ? workflowStore.getLatestVersion(workspaceId, head.name) : version,
    head.has_external_ids ? listExternalIds(workspaceId, 'workflow', head.id) : [],
  ]);
  return toWorkflowVersionView(workspaceId, head, version, latest?.number ?? version.number, externalIds);
}

/** GET /workflows/{workflow_id_or_name}/labels. */
export async function listWorkflowLabels(workspaceId: number, identifier: string) {
  const head = await findHead(workflowStore, workspaceId, identifier);
  if (!head) throw notFound(`Workflow ${identifier} not found`);
  return toWorkflowLabelsView(head);
}
