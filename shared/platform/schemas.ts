import * as z from 'zod';

/** Building blocks for query and path schemas, whose values arrive as strings. */

/** `true`/`false` (also 1/0) from a query string; zod's coerce.boolean would read "false" as true. */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0', 'True', 'False'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'True');

/** A positive integer id from a path or query string. */
export const idParam = z
  .string()
  .regex(/^\d{1,16}$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => n >= 1 && Number.isSafeInteger(n), 'must be a positive integer');

export const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d{1,16}$/, 'must be an integer')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

/** page/per_page of page-style lists. */
export const paginationQuery = (maxPerPage: number, defaultPerPage: number) => ({
  page: intParam(1, Number.MAX_SAFE_INTEGER).default(1),
  per_page: intParam(1, maxPerPage).default(defaultPerPage),
});

/**
 * A `superRefine` check for two query parameters that only mean something together (the reference's
 * `external_source` + `external_id`): a 422 on the one missing when the other is given.
 */
export function givenTogether<T extends Record<string, unknown>>(a: keyof T & string, b: keyof T & string) {
  return (query: T, ctx: z.RefinementCtx<T>) => {
    if ((query[a] === undefined) === (query[b] === undefined)) return;
    ctx.addIssue({
      code: 'custom',
      path: [query[a] === undefined ? a : b],
      message: `${a} and ${b} must be given together`,
    });
  };
}
