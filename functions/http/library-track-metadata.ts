import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { handler as headerKeyRoute } from './track-metadata.ts';

/** POST /library-track-metadata: /rest/track-metadata with the key in the body (the SDK's `track.metadata`). */
export const handler = httpRoute({
  ...headerKeyRoute.definition,
  auth: 'body',
  keyCheck: authenticateApiKey,
});
