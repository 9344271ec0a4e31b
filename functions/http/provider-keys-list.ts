import { httpRoute } from '#shared/platform/http.ts';
import { listWorkspaceProviderKeys, providerKeyListSchema } from '#shared/providers/keys.ts';

/** GET /api/public/v2/provider-keys: the keys the workspace set (hints and base URLs only). */
export const handler = httpRoute({
  permission: ['provider_keys', 'read'],
  responses: { 200: providerKeyListSchema },
  handle: ({ auth }) => listWorkspaceProviderKeys(auth.workspaceId),
});
