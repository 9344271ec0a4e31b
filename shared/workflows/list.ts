import { sameEmail } from '#shared/platform/auth-context.ts';
import type { Page } from '#shared/platform/pagination.ts';
import { listHeadsPage } from '#shared/versions/list.ts';
import { workflowStore } from './registry.ts';
import type { ListWorkflowsQuery } from './schemas.ts';
import { toWorkflowSummary } from './views.ts';

/**
 * GET /workflows: the shared list of versioned entities (shared/versions/list.ts). `created_by_email`
 * keeps the workflows whose creating key's user had that address when creating it (equal ignoring case,
 * on the whole address); a workflow created by a user without an address matches none.
 */
export type WorkflowListItem = ReturnType<typeof toWorkflowSummary>;

export function listWorkflows(
  workspaceId: number,
  query: ListWorkflowsQuery,
): Promise<Page<WorkflowListItem>> {
  const email = query.created_by_email;
  return listHeadsPage(
    workflowStore,
    workspaceId,
    query,
    (head) => email === undefined || (head.user_email !== null && sameEmail(head.user_email, email)),
    (head, latest, externalIds) => toWorkflowSummary(workspaceId, head, latest.number, externalIds),
  );
}
