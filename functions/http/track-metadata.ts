import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { successMessageSchema } from '#shared/platform/response-schemas.ts';
import { metadataField, requestIdField } from '#shared/request-logs/annotation-schemas.ts';
import { trackMetadata } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-metadata: merges string metadata into a logged request. */
export const handler = httpRoute({
  body: z.object({
    request_id: requestIdField,
    metadata: metadataField,
  }),
  permission: ['request_logs', 'edit'],
  responses: { 200: successMessageSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    await trackMetadata(auth.workspaceId, body.request_id, body.metadata);
    return { success: true, message: 'Metadata tracked successfully' };
  },
});
