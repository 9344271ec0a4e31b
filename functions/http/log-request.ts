import { httpRoute } from '#shared/platform/http.ts';
import { logRequest, type RawBody } from '#shared/request-logs/log-request.ts';
import { logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';
import { logRequestResponseSchema } from '#shared/request-logs/response-schemas.ts';

/** POST /log-request: records a request made outside the service. */
export const handler = httpRoute({
  body: logRequestBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 201: logRequestResponseSchema },
  errors: [404],
  status: 201,
  handle: ({ body, rawBody, auth }) => logRequest(auth.workspaceId, body, rawBody as RawBody),
});
