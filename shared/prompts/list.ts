import { findExternalIdOwner, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { type Page, paginate } from '#shared/platform/pagination.ts';
import { headComparator, inTimeBounds } from '#shared/versions/list.ts';
import { getLatestVersion, listHeads } from './repository.ts';
import type { ListTemplatesQuery } from './schemas.ts';
import { toListItem } from './views.ts';

/**
 * GET /prompt-templates: the workspace's template heads (one GSI1 Query, paged through), filtered and
 * sorted in memory, then the latest version (and external ids, when a template has any) of just the
 * templates on the requested page, read in parallel.
 */
export type ListItem = ReturnType<typeof toListItem>;

export async function listTemplates(workspaceId: number, query: ListTemplatesQuery): Promise<Page<ListItem>> {
  // Templates cannot be deleted (yet): there is nothing archived to list.
  if (query.status === 'deleted') return paginate([], query.page, query.per_page);
  const [heads, owner] = await Promise.all([
    listHeads(workspaceId),
    query.external_source !== undefined && query.external_id !== undefined
      ? findExternalIdOwner(workspaceId, 'prompt_template', {
          source: query.external_source,
          external_id: query.external_id,
        })
      : undefined,
  ]);
  const byExternalId = query.external_source !== undefined;
  const name = query.name?.toLowerCase();
  const tags = query.tags === undefined ? [] : [query.tags].flat();
  const matching = heads.filter(
    (head) =>
      (!byExternalId || head.id === owner) &&
      (name === undefined || head.name.toLowerCase().includes(name)) &&
      tags.every((tag) => head.tags.includes(tag)) &&
      (query.label === undefined || Object.hasOwn(head.labels, query.label)) &&
      inTimeBounds(head, query),
  );
  matching.sort(headComparator(query.sort_by ?? 'created_at', query.sort_order ?? 'desc'));

  const page = paginate(matching, query.page, query.per_page);
  const items = await Promise.all(
    page.items.map(async (head) => {
      const [latest, externalIds] = await Promise.all([
        getLatestVersion(workspaceId, head.name),
        head.has_external_ids ? listExternalIds(workspaceId, 'prompt_template', head.id) : [],
      ]);
      return latest && toListItem(head, latest, externalIds);
    }),
  );
  return { ...page, items: items.filter((item) => item !== undefined) };
}
