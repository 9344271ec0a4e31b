import { httpRoute } from '#shared/platform/http.ts';
import { trackMetadataBodySchema, trackResponseSchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackMetadata } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-metadata: merges string metadata into a logged request. */
export const handler = httpRoute({
  body: trackMetadataBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    await trackMetadata(auth.workspaceId, body.request_id, body.metadata);
    return { success: true, message: 'Metadata tracked successfully' };
  },
});
