import type { RouteDef } from '../route-types.ts';

/**
 * The PromptLayer SDK's tracking routes. They carry the API key in the JSON body (`api_key`), which API
 * Gateway's authorizer cannot read: `auth: 'body'` gives them no gateway authorizer, and their handlers
 * check the key with the authorizer's lookup and cache (shared/auth/key-cache.ts).
 */
const bodyKeyRoute = (path: string, handler: string): RouteDef => ({
  method: 'POST',
  path,
  handler: `functions/http/${handler}.ts`,
  auth: 'body',
  table: 'write',
  // A log over the item limit lives in the bucket: rewriting one reads and writes it there.
  bucket: 'write',
});

export const CLIENT_ROUTES: readonly RouteDef[] = [
  bodyKeyRoute('/library-track-metadata', 'library-track-metadata'),
  bodyKeyRoute('/library-track-score', 'library-track-score'),
  bodyKeyRoute('/library-track-prompt', 'library-track-prompt'),
  bodyKeyRoute('/track-group', 'library-track-group'),
  {
    method: 'POST',
    path: '/create-group',
    handler: 'functions/http/create-group.ts',
    auth: 'body',
    table: 'write',
  },
  bodyKeyRoute('/track-request', 'track-request'),
];
