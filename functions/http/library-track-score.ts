import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { handler as headerKeyRoute } from './track-score.ts';

/** POST /library-track-score: /rest/track-score with the key in the body (the SDK's `track.score`). */
export const handler = httpRoute({
  ...headerKeyRoute.definition,
  auth: 'body',
  keyCheck: authenticateApiKey,
});
