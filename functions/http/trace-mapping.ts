import { explainTrace, traceMappingResponseSchema } from '#shared/otlp/explain.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { traceIdField } from '#shared/traces/schemas.ts';

/**
 * GET /api/public/v2/traces/{trace_id}/mapping: per span, the convention that matched and which
 * attribute became which request-log field ("why is my cost 0?" in one call).
 */
export const handler = httpRoute({
  path: z.object({ trace_id: traceIdField }),
  permission: ['request_logs', 'read'],
  responses: { 200: traceMappingResponseSchema },
  handle: ({ path, auth }) => explainTrace(auth.workspaceId, path.trace_id),
});
