import { httpRoute } from '#shared/platform/http.ts';
import { trackGroupBodySchema, trackResponseSchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackGroup } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-group: attaches a logged request to a group. */
export const handler = httpRoute({
  body: trackGroupBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    await trackGroup(auth.workspaceId, body.request_id, body.group_id);
    return { success: true, message: 'Group tracked successfully' };
  },
});
