import { notFound } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { toRequestLogDetail } from '#shared/request-logs/detail-view.ts';
import { getRequestLog } from '#shared/request-logs/repository.ts';
import { requestLogDetailSchema } from '#shared/request-logs/response-schemas.ts';

/** GET /api/public/v2/requests/{request_id}: one logged request of the caller's workspace. */
export const handler = httpRoute({
  path: z.object({ request_id: idParam }),
  permission: ['request_logs', 'read'],
  responses: { 200: requestLogDetailSchema },
  handle: async ({ path, auth }) => {
    const record = await getRequestLog(auth.workspaceId, path.request_id);
    if (!record) throw notFound(`Request ${path.request_id} not found`);
    return toRequestLogDetail(record);
  },
});
