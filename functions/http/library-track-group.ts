import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { handler as headerKeyRoute } from './track-group.ts';

/**
 * POST /track-group: /rest/track-group with the key in the body (the SDK's `track.group`; the SDK's
 * path has no `library-` prefix, unlike its other tracking calls).
 */
export const handler = httpRoute({
  ...headerKeyRoute.definition,
  auth: 'body',
  keyCheck: authenticateApiKey,
});
