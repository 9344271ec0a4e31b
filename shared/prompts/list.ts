import { findExternalIdOwner, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { type Page, paginate } from '#shared/platform/pagination.ts';
import type { TemplateHead } from './records.ts';
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
      within(head.created_at, query.created_after, query.created_before) &&
      within(head.updated_at, query.updated_after, query.updated_before),
  );
  matching.sort(comparator(query.sort_by ?? 'created_at', query.sort_order ?? 'desc'));

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

const within = (value: number, after?: number, before?: number) =>
  (after === undefined || value >= after) && (before === undefined || value <= before);

function comparator(
  sortBy: NonNullable<ListTemplatesQuery['sort_by']>,
  order: NonNullable<ListTemplatesQuery['sort_order']>,
) {
  const key = (head: TemplateHead): number | string => {
    switch (sortBy) {
      case 'created_at':
        return head.created_at;
      case 'updated_at':
        return head.updated_at;
      case 'name':
        return head.name.toLowerCase();
      case 'id':
        return head.id;
    }
  };
  const sign = order === 'asc' ? 1 : -1;
  return (a: TemplateHead, b: TemplateHead) => {
    const ka = key(a);
    const kb = key(b);
    // Ties (same second, same name) fall back to the id, so pages never overlap.
    return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id);
  };
}
