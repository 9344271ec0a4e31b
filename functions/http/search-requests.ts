import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { sortOrderNeedsSortBy } from '#shared/platform/schemas.ts';
import { requestLogQuerySchema } from '#shared/request-logs/query.ts';
import { requestLogSearchResponseSchema } from '#shared/request-logs/response-schemas.ts';
import {
  SEARCH_DEFAULT_PER_PAGE,
  SEARCH_MAX_PER_PAGE,
  searchRequestLogs,
} from '#shared/request-logs/search.ts';

/**
 * POST /api/public/v2/requests/search: searches the workspace's logs (filter_group, q), sorted, a page at
 * a time.
 */
export const handler = httpRoute({
  body: requestLogQuerySchema
    .extend({
      page: z
        .int()
        .min(1)
        .nullish()
        .transform((page) => page ?? 1),
      per_page: z
        .int()
        .min(1)
        .max(SEARCH_MAX_PER_PAGE)
        .nullish()
        .transform((perPage) => perPage ?? SEARCH_DEFAULT_PER_PAGE),
      // false leaves prompt_name out of the items; absent or null keeps it (it is stored on the log).
      include_prompt_name: z.boolean().nullish(),
    })
    .superRefine(sortOrderNeedsSortBy),
  permission: ['request_logs', 'read'],
  responses: { 200: requestLogSearchResponseSchema },
  handle: ({ body, auth }) => searchRequestLogs(auth.workspaceId, body),
});
