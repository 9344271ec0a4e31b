/** Listing a kind's heads: the filters and order every list of versioned entities shares. */

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
export function headComparator(sortBy: HeadSortField, order: 'asc' | 'desc') {
  const key = (head: Listed): number | string => {
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
  return (a: Listed, b: Listed) => {
    const ka = key(a);
    const kb = key(b);
    return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id);
  };
}
