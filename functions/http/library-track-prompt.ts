import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { handler as headerKeyRoute } from './track-prompt.ts';

/** POST /library-track-prompt: /rest/track-prompt with the key in the body (the SDK's `track.prompt`). */
export const handler = httpRoute({
  ...headerKeyRoute.definition,
  auth: 'body',
  keyCheck: authenticateApiKey,
});
