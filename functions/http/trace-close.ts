import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { closeTrace } from '#shared/traces/closures.ts';
import { traceCloseResponseSchema, traceIdField } from '#shared/traces/schemas.ts';

/**
 * POST /api/public/v2/traces/{trace_id}/close (PromptLayer's closeTrace): later spans of the trace, on
 * /v1/traces or /spans-bulk, are refused with 409.
 */
export const handler = httpRoute({
  path: z.object({ trace_id: traceIdField }),
  body: z.object({}),
  optionalBody: true,
  permission: ['request_logs', 'edit'],
  status: 201,
  responses: { 201: traceCloseResponseSchema },
  handle: ({ path, auth }) => closeTrace(auth.workspaceId, path.trace_id),
});
