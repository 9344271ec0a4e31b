import { httpRoute } from '#shared/platform/http.ts';
import { listTraces, traceListQuerySchema, traceListSchema } from '#shared/traces/list.ts';

/** GET /api/public/v2/traces: the caller's workspace's traces, newest first, after a cursor. */
export const handler = httpRoute({
  query: traceListQuerySchema,
  permission: ['request_logs', 'read'],
  responses: { 200: traceListSchema },
  handle: ({ query, auth }) => listTraces(auth.workspaceId, query),
});
