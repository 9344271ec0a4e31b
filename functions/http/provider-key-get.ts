import { httpRoute } from '#shared/platform/http.ts';
import { getProviderKeyView, providerKeyAnswerSchema, providerPathSchema } from '#shared/providers/keys.ts';

/** GET /api/public/v2/provider-keys/{provider}: the key's hint and base URL; 404 when none is set. */
export const handler = httpRoute({
  path: providerPathSchema,
  permission: ['provider_keys', 'read'],
  responses: { 200: providerKeyAnswerSchema },
  handle: ({ path, auth }) => getProviderKeyView(auth.workspaceId, path.provider),
});
