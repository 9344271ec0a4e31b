import { httpRoute } from '#shared/platform/http.ts';
import { trackMetadataBodySchema, trackResponseSchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackMetadata } from '#shared/request-logs/annotations.ts';

/** POST /library-track-metadata: /rest/track-metadata with the key in the body (the SDK's `track.metadata`). */
export const handler = httpRoute({
  auth: 'body',
  body: trackMetadataBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  handle: async ({ body, auth }) => {
    await trackMetadata(auth.workspaceId, body.request_id, body.metadata);
    return { success: true, message: 'Metadata tracked successfully' };
  },
});
