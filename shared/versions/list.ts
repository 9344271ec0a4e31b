import { inFolder } from '#shared/entities/folder-filter.ts';
import { type ExternalId, findExternalIdOwner, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { type Page, paginate } from '#shared/platform/pagination.ts';
import type { Head, LabelEntryBase } from './kind.ts';
import type { VersionStore } from './store.ts';

/**
 * Listing a kind's heads: the filters, order and page every list of versioned entities shares. The
 * workspace's heads are one GSI1 Query (paged through), filtered and sorted in memory, then the latest
 * version (and external ids, when an entity has any) of just the entities on the requested page are
 * read in parallel.
 */

export const HEAD_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'id'] as const;
export type HeadSortField = (typeof HEAD_SORT_FIELDS)[number];

interface Listed {
  id: number;
  name: string;
  created_at: number;
  updated_at: number;
}

/** Inclusive bounds; an absent one does not bound. */
export const within = (value: number, after?: number, before?: number) =>
  (after === undefined || value >= after) && (before === undefined || value <= before);

/** Created and updated times within the query's bounds. */
export const inTimeBounds = (
  head: Listed,
  query: { created_after?: number; created_before?: number; updated_after?: number; updated_before?: number },
) =>
  within(head.created_at, query.created_after, query.created_before) &&
  within(head.updated_at, query.updated_after, query.updated_before);

/** The order of a list; ties (same millisecond, same name) fall back to the id, so pages never overlap. */
export function headComparator<T extends Listed>(
  sortBy: HeadSortField,
  order: 'asc' | 'desc',
  nameOf: (head: T) => string = (head) => head.name,
) {
  const key = (head: T): number | string => {
    switch (sortBy) {
      case 'created_at':
        return head.created_at;
      case 'updated_at':
        return head.updated_at;
      case 'name':
        return nameOf(head).toLowerCase();
      case 'id':
        return head.id;
    }
  };
  const sign = order === 'asc' ? 1 : -1;
  return (a: T, b: T) => {
    const ka = key(a);
    const kb = key(b);
    return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id);
  };
}

/**
 * The items of one page of heads: each with its latest version and, when it has any, its external ids,
 * read in parallel. A head whose latest version cannot be read (none yet) is left out.
 */
async function withLatestAndExternalIds<V, L extends LabelEntryBase, X, T>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  heads: Head<L, X>[],
  toItem: (head: Head<L, X>, latest: V, externalIds: ExternalId[]) => T,
): Promise<T[]> {
  const items = await Promise.all(
    heads.map(async (head) => {
      const [latest, externalIds] = await Promise.all([
        store.getLatestVersion(workspaceId, head.name),
        head.has_external_ids ? listExternalIds(workspaceId, store.kind.externalIdEntity, head.id) : [],
      ]);
      return latest && toItem(head, latest, externalIds);
    }),
  );
  return items.filter((item) => item !== undefined);
}

export interface HeadListQuery {
  page: number;
  per_page: number;
  sort_by?: HeadSortField;
  sort_order?: 'asc' | 'desc';
  external_source?: string;
  external_id?: string;
  created_after?: number;
  created_before?: number;
  updated_after?: number;
  updated_before?: number;
  /** A folder's entities; null: those at the workspace root; absent: all. */
  folder_id?: number | null;
}

/**
 * One page of a kind's entities: those with the query's external id (when given; given together), in
 * its folder (when given) and within its time bounds that `keep` keeps, by `sort_by` (default created_at) and `sort_order` (default
 * desc).
 */
export async function listHeadsPage<V, L extends LabelEntryBase, X extends { folder_id: number | null }, T>(
  store: VersionStore<V, L, X>,
  workspaceId: number,
  query: HeadListQuery,
  keep: (head: Head<L, X>) => boolean,
  toItem: (head: Head<L, X>, latest: V, externalIds: ExternalId[]) => T,
): Promise<Page<T>> {
  const byExternalId = query.external_source !== undefined && query.external_id !== undefined;
  const [heads, owner] = await Promise.all([
    store.listHeads(workspaceId),
    byExternalId
      ? findExternalIdOwner(workspaceId, store.kind.externalIdEntity, {
          source: query.external_source!,
          external_id: query.external_id!,
        })
      : undefined,
  ]);
  const matching = heads.filter(
    (head) =>
      (!byExternalId || head.id === owner) &&
      inFolder(head.folder_id, query.folder_id) &&
      inTimeBounds(head, query) &&
      keep(head),
  );
  const { listedName } = store.kind;
  matching.sort(
    headComparator(query.sort_by ?? 'created_at', query.sort_order ?? 'desc', listedName?.bind(store.kind)),
  );
  const page = paginate(matching, query.page, query.per_page);
  return { ...page, items: await withLatestAndExternalIds(store, workspaceId, page.items, toItem) };
}
