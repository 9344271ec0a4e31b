import { jsonBytes, PLAIN_ANSWER_BUDGET_BYTES } from '#shared/platform/answer-limit.ts';

/**
 * Keeps a page of the evaluations list within one Lambda answer. An item may carry up to ~380 KB
 * (a score code of 100,000 characters, 100 tags of 255) and `include_runs` nests every copy, so a page
 * of 100 could pass the 6 MB Lambda answers (a 502 for a valid request). Past the budget, the largest
 * of the items' bulky fields are left out first (each item names them in `omitted_fields`; GET
 * /reports/{report_id} shows them all), then, if need be, the oldest runs of the items with the most
 * runs (`runs_omitted` counts them).
 */

/** The fields a list item may leave out, and what stands in their place. */
export const OMITTABLE_FIELDS = {
  score_configuration: null,
  score: null,
  score_matrix: null,
  tags: [],
  external_ids: [],
} as const;
export type OmittableField = keyof typeof OMITTABLE_FIELDS;

export type BudgetedItem = Record<string, unknown> & { omitted_fields?: OmittableField[] };

export type BudgetedEntry = BudgetedItem & { runs?: BudgetedItem[]; runs_omitted?: number };

const FIELDS = Object.keys(OMITTABLE_FIELDS) as OmittableField[];
/** What a marker adds at most: `,"omitted_fields":[...]` with every field named. */
const MARKER_BYTES = jsonBytes({ omitted_fields: FIELDS });
const RUNS_MARKER_BYTES = jsonBytes({ runs_omitted: Number.MAX_SAFE_INTEGER });

/**
 * The page's items (mutated in place) within `budget` bytes of plain JSON (the answer budget for JSON
 * measured unescaped), as described above.
 */
export function withinListBudget<T extends BudgetedEntry>(
  items: T[],
  budget = PLAIN_ANSWER_BUDGET_BYTES,
): T[] {
  let total = jsonBytes(items);
  if (total <= budget) return items;

  const fields = items
    .flatMap((item) => [item, ...(item.runs ?? [])])
    .flatMap((owner) =>
      FIELDS.map((field) => ({
        owner,
        field,
        bytes: jsonBytes(owner[field]),
      })),
    )
    .sort((a, b) => b.bytes - a.bytes);
  for (const { owner, field, bytes } of fields) {
    if (total <= budget) return items;
    const stand = OMITTABLE_FIELDS[field];
    // The item's first omission adds its marker: not worth it for a field smaller than that.
    const saved = bytes - jsonBytes(stand) - (owner.omitted_fields ? 0 : MARKER_BYTES);
    if (saved <= 0) continue;
    owner[field] = Array.isArray(stand) ? [] : stand;
    owner.omitted_fields = [...(owner.omitted_fields ?? []), field];
    total -= saved;
  }

  while (total > budget) {
    const most = items.reduce<T | undefined>(
      (best, item) => ((item.runs?.length ?? 0) > (best?.runs?.length ?? 0) ? item : best),
      undefined,
    );
    const oldest = most?.runs?.pop();
    if (!most || !oldest) break;
    // The marker `,"runs_omitted":N` counts once per item.
    if (most.runs_omitted === undefined) total += RUNS_MARKER_BYTES;
    most.runs_omitted = (most.runs_omitted ?? 0) + 1;
    total -= jsonBytes(oldest) + 1;
  }
  return items;
}
