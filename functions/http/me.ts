import { describeCaller, meResponseSchema } from '#shared/auth/me.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * GET /api/public/v2/me: the workspace, key (its id and prefix, never the key), user and permissions per
 * entity type of the calling key. The dashboard checks a key with it at sign-in.
 */
export const handler = httpRoute({
  permission: 'any-key',
  responses: { 200: meResponseSchema },
  handle: ({ auth, headers }) => describeCaller(auth, headers['x-api-key']),
});
