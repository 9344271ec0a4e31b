import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getTrace } from '#shared/traces/read.ts';
import { traceIdField, traceResponseSchema } from '#shared/traces/schemas.ts';

/** GET /api/public/v2/traces/{trace_id}: one trace of the caller's workspace, as a tree of spans. */
export const handler = httpRoute({
  path: z.object({ trace_id: traceIdField }),
  permission: ['request_logs', 'read'],
  responses: { 200: traceResponseSchema },
  handle: ({ path, auth }) => getTrace(auth.workspaceId, path.trace_id),
});
