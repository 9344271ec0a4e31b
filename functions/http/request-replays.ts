import { httpRoute } from '#shared/platform/http.ts';
import { idParam, paginationQuery } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import {
  listReplays,
  REPLAYS_DEFAULT_PER_PAGE,
  REPLAYS_MAX_PER_PAGE,
  replaysPageSchema,
} from '#shared/replay/list.ts';

/** GET /api/public/v2/requests/{request_id}/replays: the log's replays, newest first, with a diff summary. */
export const handler = httpRoute({
  path: z.object({ request_id: idParam }),
  query: z.object(paginationQuery(REPLAYS_MAX_PER_PAGE, REPLAYS_DEFAULT_PER_PAGE)),
  permission: ['request_logs', 'read'],
  responses: { 200: replaysPageSchema },
  handle: ({ path, query, auth }) =>
    listReplays(auth.workspaceId, path.request_id, query.page, query.per_page),
});
