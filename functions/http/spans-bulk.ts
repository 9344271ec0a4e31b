import { httpRoute } from '#shared/platform/http.ts';
import { createSpansBulk } from '#shared/traces/ingest.ts';
import { spansBulkBodySchema, spansBulkResponseSchema } from '#shared/traces/schemas.ts';

/** POST /spans-bulk: stores OpenTelemetry spans (what the SDK's exporter sends), linked to request logs. */
export const handler = httpRoute({
  body: spansBulkBodySchema,
  permission: ['request_logs', 'edit'],
  status: 201,
  responses: { 201: spansBulkResponseSchema },
  errors: [404, 409],
  handle: ({ body, rawBody, auth }) =>
    createSpansBulk(auth.workspaceId, body, rawBody as Record<string, unknown>),
});
