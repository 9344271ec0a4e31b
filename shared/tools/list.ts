import { sameEmail } from '#shared/platform/auth-context.ts';
import { listHeadsPage } from '#shared/versions/list.ts';
import { toolStore } from './registry.ts';
import type { ListToolsQuery } from './schemas.ts';
import { toToolEntry } from './views.ts';

/**
 * GET /api/public/v2/tool-registry: the shared list of versioned entities (shared/versions/list.ts),
 * most recently updated first unless `sort_by` says otherwise. `created_by_email` keeps the tools whose
 * creating key's user had that address (equal ignoring case).
 */
export async function listTools(workspaceId: number, query: ListToolsQuery) {
  const email = query.created_by_email;
  const { items, ...page } = await listHeadsPage(
    toolStore,
    workspaceId,
    { ...query, sort_by: query.sort_by ?? 'updated_at' },
    (head) => email === undefined || (head.user_email !== null && sameEmail(head.user_email, email)),
    (head, latest, externalIds) => toToolEntry(workspaceId, head, latest.number, externalIds),
  );
  return { success: true as const, tool_registries: items, ...page };
}
