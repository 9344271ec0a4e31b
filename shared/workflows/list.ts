import type { Page } from '#shared/platform/pagination.ts';
import { listHeadsPage } from '#shared/versions/list.ts';
import { workflowStore } from './registry.ts';
import type { ListWorkflowsQuery } from './schemas.ts';
import { toWorkflowSummary } from './views.ts';

/**
 * GET /workflows: the shared list of versioned entities (shared/versions/list.ts). `created_by_email`
 * keeps the workflows created by the user with that address; users carry no e-mail address in this
 * service (an API key knows its user only by id), so no workflow matches one.
 */
export type WorkflowListItem = ReturnType<typeof toWorkflowSummary>;

export function listWorkflows(
  workspaceId: number,
  query: ListWorkflowsQuery,
): Promise<Page<WorkflowListItem>> {
  const byCreator = query.created_by_email !== undefined;
  return listHeadsPage(
    workflowStore,
    workspaceId,
    query,
    () => !byCreator,
    (head, latest, externalIds) => toWorkflowSummary(workspaceId, head, latest.number, externalIds),
  );
}
