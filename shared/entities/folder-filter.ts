import * as z from '#shared/platform/zod.ts';

/**
 * The `folder_id` filter of the lists whose items carry a folder (prompt templates, workflows, registry
 * tools, evaluations): a folder id keeps the entities directly in that folder (not those of its
 * sub-folders), `null` those at the workspace root (in no folder), and an absent filter keeps every
 * entity. An id of no folder simply matches nothing. Free of the kinds table, so a list's bundle does
 * not carry it.
 */
export const folderFilterParam = z
  .pipe(
    z.string(),
    z.transform((text, ctx): number | null => {
      if (text === 'null') return null;
      const id = /^\d{1,16}$/.test(text) ? Number(text) : 0;
      if (id >= 1 && Number.isSafeInteger(id)) return id;
      ctx.issues.push({
        input: ctx.value,
        code: 'custom',
        message: 'must be a folder id (a positive integer) or null (the workspace root)',
      });
      return z.NEVER;
    }),
  )
  .clone()
  .register(z.globalRegistry, {
    description:
      'Only the entities directly in this folder; `null`: those at the workspace root. Absent: every folder.',
  });

/** Whether an entity in `folderId` (null or absent: the root) passes the filter. */
export const inFolder = (folderId: number | null | undefined, filter: number | null | undefined): boolean =>
  filter === undefined || (folderId ?? null) === filter;
