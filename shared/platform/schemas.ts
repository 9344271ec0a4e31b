import * as z from '#shared/platform/zod.ts';

/** Building blocks for query and path schemas, whose values arrive as strings. */

export const ILL_FORMED_UNICODE =
  'must be well-formed Unicode: it holds a lone UTF-16 surrogate (such as \\ud800), which cannot be stored as sent';

/**
 * A string for a name, an identifier or anything else that becomes part of a key (prompt and label
 * names, dataset group names, external ids, file names): well-formed Unicode only. A lone UTF-16
 * surrogate ("\ud800") becomes U+FFFD once encoded as UTF-8, so "s\ud800", "s\udc00" and "s\ufffd" would
 * all land on one entity; they are refused with a 422 instead. Text content (messages, metadata values)
 * keeps plain `z.string()` and is stored as sent. Add bounds after it: `wellFormedString().check(z.minLength(1))`.
 */
export const wellFormedString = () =>
  z.string().check(z.refine((text) => text.isWellFormed(), { message: ILL_FORMED_UNICODE, abort: true }));

/** Any JSON object (values unchecked): parameters, variables, attributes, provider payloads. */
/** Whether a string is a UUID (any version; either case), as the ids of skill collections are. */
export const isUuid = (text: string) => UUID_PATTERN.test(text);
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const jsonObject = z.record(z.string(), z.unknown());

/**
 * A record whose keys the client names and the service keeps (a workflow's input variables, node
 * configurations, a patch's nodes by name). JSON.parse keeps a `"__proto__"` key as a plain property,
 * but a parsed record cannot hold it (zod drops it): refused with a 422 at that key instead of vanishing
 * from something answered 201.
 */
export function ownKeysRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(key: K, value: V) {
  return z.pipe(
    z.transform((input, ctx) => {
      if (input !== null && typeof input === 'object' && Object.hasOwn(input, '__proto__')) {
        ctx.issues.push({
          code: 'custom',
          path: ['__proto__'],
          message: '__proto__ cannot be used as a key',
          input,
        });
      }
      return input;
    }),
    z.record(key, value),
  );
}

/** `true`/`false` (also 1/0) from a query string; zod's coerce.boolean would read "false" as true. */
export const queryBoolean = z.pipe(
  z.enum(['true', 'false', '1', '0', 'True', 'False'], { error: 'must be true or false' }),
  z.transform((value) => value === 'true' || value === '1' || value === 'True'),
);

/** An id as the API writes it: a positive integer in decimal, without leading zeros. */
export const CANONICAL_ID = /^[1-9]\d{0,15}$/;

/**
 * A custom issue's `params` that make a failed path parameter a 404 rather than a 422: the value is of
 * the parameter's kind but names nothing (`/reports/0003` is not report 3).
 */
export const NOT_FOUND_IN_PATH = { notFoundInPath: true } as const;

/**
 * A positive integer id from a path or query string. Only its canonical form is an id: in a path,
 * digits with a leading zero name no resource (404); in a query they are a 422.
 */
export const idParam = z
  .pipe(
    z.string().check(
      z.regex(/^\d{1,16}$/, 'must be a positive integer'),
      z.refine((text) => !text.startsWith('0') || text === '0', {
        message: 'must be written without leading zeros',
        params: NOT_FOUND_IN_PATH,
      }),
    ),
    z.transform(Number),
  )
  .check(z.refine((n) => n >= 1 && Number.isSafeInteger(n), 'must be a positive integer'));

export const intParam = (min: number, max: number) =>
  z
    .pipe(z.string().check(z.regex(/^-?\d{1,16}$/, 'must be an integer')), z.transform(Number))
    .check(z.refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`));

/** page/per_page of page-style lists. */
export const paginationQuery = (maxPerPage: number, defaultPerPage: number) => ({
  page: z._default(intParam(1, Number.MAX_SAFE_INTEGER), 1),
  per_page: z._default(intParam(1, maxPerPage), defaultPerPage),
});

/**
 * A `superRefine` check for list and search routes: a sort direction only means something with the field
 * it orders by, so `sort_order` without `sort_by` is a 422 at `sort_order` (a paired parameter), never
 * silently read as an order of some default field. Neither given is the route's default order.
 */
export function sortOrderNeedsSortBy<T extends { sort_by?: unknown; sort_order?: unknown }>(
  query: T,
  ctx: z.core.$RefinementCtx<T>,
) {
  if (query.sort_order == null || query.sort_by != null) return;
  ctx.addIssue({ code: 'custom', path: ['sort_order'], message: 'sort_order must be given with sort_by' });
}

/**
 * A `superRefine` check for two query parameters that only mean something together (the reference's
 * `external_source` + `external_id`): a 422 on the one missing when the other is given.
 */
export function givenTogether<T extends Record<string, unknown>>(a: keyof T & string, b: keyof T & string) {
  return (query: T, ctx: z.core.$RefinementCtx<T>) => {
    if ((query[a] === undefined) === (query[b] === undefined)) return;
    ctx.addIssue({
      code: 'custom',
      path: [query[a] === undefined ? a : b],
      message: `${a} and ${b} must be given together`,
    });
  };
}
