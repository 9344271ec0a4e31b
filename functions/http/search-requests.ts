import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { sortOrderNeedsSortBy } from '#shared/platform/schemas.ts';
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
  body: requestLogQuerySchema
    .extend({
      page: z.int().min(1).nullish(),
      per_page: z
        .int()
        .min(1)
        .max(SEARCH_MAX_PER_PAGE)
        .nullish()
        .transform((perPage) => perPage ?? SEARCH_DEFAULT_PER_PAGE),
      cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).nullish().meta({
        description:
          'The `next_cursor` of the previous page: this page continues right after its last row, for the same search (filter_group, q, sort_by, sort_order, per_page; a cursor of another search is a 400). Logs added meanwhile before that row never shift the pages. Not with `page`.',
      }),
      include_total: z.boolean().nullish().meta({
        description:
          'false: `total` and `pages` are null and the matches are not counted; in time order the search stops reading once the page (and one match past it) is found. Absent or true: counted as before.',
      }),
      // false leaves prompt_name out of the items; absent or null keeps it (it is stored on the log).
      include_prompt_name: z.boolean().nullish(),
    })
    .superRefine(sortOrderNeedsSortBy)
    .superRefine((body, ctx) => {
      if (body.cursor != null && body.page != null) {
        ctx.addIssue({ code: 'custom', path: ['page'], message: 'page cannot be given with cursor' });
      }
    }),
  permission: ['request_logs', 'read'],
  responses: { 200: requestLogSearchResponseSchema },
  handle: ({ body, auth }) => searchRequestLogs(auth.workspaceId, body),
});
