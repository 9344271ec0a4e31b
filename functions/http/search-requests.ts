import { httpRoute } from '#shared/platform/http.ts';
import { sortOrderNeedsSortBy } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { requestLogQuerySchema } from '#shared/request-logs/query.ts';
import { requestLogSearchResponseSchema } from '#shared/request-logs/response-schemas.ts';
import {
  MAX_CURSOR_LENGTH,
  SEARCH_DEFAULT_PER_PAGE,
  SEARCH_MAX_PER_PAGE,
  searchRequestLogs,
} from '#shared/request-logs/search.ts';

/**
 * POST /api/public/v2/requests/search: searches the workspace's logs (filter_group, q), sorted, a page at
 * a time: by page number, or after the `next_cursor` of the previous page (`include_total: false` keeps a
 * page from counting every match).
 */
export const handler = httpRoute({
  body: z
    .extend(requestLogQuerySchema, {
      page: z.nullish(z.int().check(z.gte(1))),
      per_page: z.pipe(
        z.nullish(z.int().check(z.gte(1), z.lte(SEARCH_MAX_PER_PAGE))),
        z.transform((perPage) => perPage ?? SEARCH_DEFAULT_PER_PAGE),
      ),
      cursor: z
        .nullish(z.string().check(z.minLength(1), z.maxLength(MAX_CURSOR_LENGTH)))
        .clone()
        .register(z.globalRegistry, {
          description:
            'The `next_cursor` of the previous page: this page continues right after its last row, for the same search (filter_group, q, sort_by, sort_order, per_page; a cursor of another search is a 400). Logs added meanwhile before that row never shift the pages. Not with `page`.',
        }),
      include_total: z.nullish(z.boolean()).clone().register(z.globalRegistry, {
        description:
          'false: `total` and `pages` are null and the matches are not counted; in time order the search stops reading once the page (and one match past it) is found. Absent or true: counted as before.',
      }),
      // false leaves prompt_name out of the items; absent or null keeps it (it is stored on the log).
      include_prompt_name: z.nullish(z.boolean()),
    })
    .check(
      z.superRefine(sortOrderNeedsSortBy),
      z.superRefine((body, ctx) => {
        if (body.cursor != null && body.page != null) {
          ctx.addIssue({ code: 'custom', path: ['page'], message: 'page cannot be given with cursor' });
        }
      }),
    ),
  permission: ['request_logs', 'read'],
  responses: { 200: requestLogSearchResponseSchema },
  handle: ({ body, auth }) => searchRequestLogs(auth.workspaceId, body),
});
