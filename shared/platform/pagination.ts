/** The page-style list answer of every paged list: items plus page arithmetic. */
export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  pages: number;
  total: number;
  has_next: boolean;
  has_prev: boolean;
  next_num: number | null;
  prev_num: number | null;
}

export function toPage<T>(items: T[], page: number, perPage: number, total: number): Page<T> {
  const pages = Math.ceil(total / perPage);
  const hasNext = page < pages;
  const hasPrev = page > 1;
  return {
    items,
    page,
    per_page: perPage,
    pages,
    total,
    has_next: hasNext,
    has_prev: hasPrev,
    next_num: hasNext ? page + 1 : null,
    prev_num: hasPrev ? page - 1 : null,
  };
}

/** Slices one page out of an already ordered list. */
export function paginate<T>(all: T[], page: number, perPage: number): Page<T> {
  const start = (page - 1) * perPage;
  return toPage(all.slice(start, start + perPage), page, perPage, all.length);
}
