import { type Page, paginate } from '#shared/platform/pagination.ts';
import { listHeadsPage } from '#shared/versions/list.ts';
import { promptStore } from './repository.ts';
import type { ListTemplatesQuery } from './schemas.ts';
import { toListItem } from './views.ts';

/**
 * GET /prompt-templates: the shared list of versioned entities (shared/versions/list.ts) with the
 * registry's own filters (name, tags, label, status).
 */
export type ListItem = ReturnType<typeof toListItem>;

export async function listTemplates(workspaceId: number, query: ListTemplatesQuery): Promise<Page<ListItem>> {
  // Templates cannot be deleted (yet): there is nothing archived to list.
  if (query.status === 'deleted') return paginate([], query.page, query.per_page);
  const name = query.name?.toLowerCase();
  const tags = query.tags === undefined ? [] : [query.tags].flat();
  return listHeadsPage(
    promptStore,
    workspaceId,
    query,
    (head) =>
      (name === undefined || head.name.toLowerCase().includes(name)) &&
      tags.every((tag) => head.tags.includes(tag)) &&
      (query.label === undefined || Object.hasOwn(head.labels, query.label)),
    toListItem,
  );
}
