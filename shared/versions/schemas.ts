import { folderFilterParam } from '#shared/entities/folder-filter.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import {
  givenTogether,
  intParam,
  paginationQuery,
  sortOrderNeedsSortBy,
  wellFormedString,
} from '#shared/platform/schemas.ts';
import { queryTimestampSchema } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { HEAD_SORT_FIELDS } from './list.ts';

/** Request pieces every versioned entity kind shares. */

export const labelNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));
/** Each label moved writes a copy of the version (store.ts): bounded per publish. */
export const MAX_RELEASE_LABELS = 100;

/**
 * The external ids one publish may claim: each is a conditional write made before the version, so an
 * unbounded list would outlast the request (a 5xx, with claims left behind) instead of a 422.
 */
export const MAX_PUBLISH_EXTERNAL_IDS = 100;
export const publishExternalIdsSchema = z
  .array(externalIdSchema)
  .check(z.maxLength(MAX_PUBLISH_EXTERNAL_IDS));

/** The query fields of a read by version or label (check them with `versionOrLabel`). */
export const versionSelectorQuery = {
  version: z.optional(intParam(1, Number.MAX_SAFE_INTEGER)),
  label: z.optional(labelNameSchema),
};

/** A read selects a version by number or by label, never both. */
export function versionOrLabel(
  select: { version?: number | null; label?: string | null },
  ctx: z.core.$RefinementCtx,
): void {
  if (select.version != null && select.label != null) {
    ctx.addIssue({ code: 'custom', path: ['label'], message: 'version and label are mutually exclusive' });
  }
}

/**
 * The filters every list of entities takes (inclusive time bounds, one external id): apply
 * `givenTogether('external_source', 'external_id')` to the object that spreads them.
 */
export const entityListFilters = {
  external_source: z.optional(externalIdSchema.shape.source),
  external_id: z.optional(externalIdSchema.shape.external_id),
  created_after: z.optional(queryTimestampSchema),
  created_before: z.optional(queryTimestampSchema),
  updated_after: z.optional(queryTimestampSchema),
  updated_before: z.optional(queryTimestampSchema),
};

/**
 * The query of a list of versioned entities (list.ts, HeadListQuery) plus a kind's own filters:
 * page >= 1 (default 1), per_page 1..100 (default 30, or `defaultPerPage`), inclusive time bounds, external_source and
 * external_id only together, `folder_id` (a folder, `null` for the root; absent: all), sort_by
 * (created_at by default) and sort_order (desc by default; only with sort_by, a 422 alone).
 */
export function headListQuerySchema<T extends z.core.$ZodShape>(
  filters: T,
  options: { defaultPerPage?: number } = {},
) {
  return z
    .object({
      ...paginationQuery(100, options.defaultPerPage ?? 30),
      ...filters,
      ...entityListFilters,
      folder_id: z.optional(folderFilterParam),
      sort_by: z.optional(z.enum(HEAD_SORT_FIELDS)),
      sort_order: z.optional(z.enum(['asc', 'desc'])),
    })
    .check(
      z.superRefine(givenTogether('external_source', 'external_id')),
      z.superRefine(sortOrderNeedsSortBy),
    );
}
