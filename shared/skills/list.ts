import { sameEmail } from '#shared/platform/auth-context.ts';
import { listHeadsPage } from '#shared/versions/list.ts';
import { skillStore } from './collection.ts';
import type { ListCollectionsQuery } from './schemas.ts';
import { toCollection } from './views.ts';

/**
 * GET /api/public/v2/skill-collections: the shared list of versioned entities (shared/versions/list.ts),
 * most recently updated first unless `sort_by` says otherwise (`name` sorts by the collection's name).
 * `folder_id` keeps the collections in that folder (null: at the root); `created_by_email` those whose creating key's user
 * had that address (equal ignoring case).
 */
export async function listCollections(workspaceId: number, query: ListCollectionsQuery) {
  const email = query.created_by_email;
  const { items, ...page } = await listHeadsPage(
    skillStore,
    workspaceId,
    { ...query, sort_by: query.sort_by ?? 'updated_at' },
    (head) =>
      !head.is_deleted &&
      (email === undefined || (head.user_email !== null && sameEmail(head.user_email, email))),
    (head, latest, externalIds) => toCollection(workspaceId, head, latest.number, externalIds),
  );
  return { success: true as const, skill_collections: items, ...page };
}
