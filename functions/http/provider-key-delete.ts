import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { providerPathSchema, removeProviderKey } from '#shared/providers/keys.ts';

/** DELETE /api/public/v2/provider-keys/{provider}: nodes fall back to the deployment's key. */
export const handler = httpRoute({
  path: providerPathSchema,
  permission: ['provider_keys', 'edit'],
  responses: { 200: successSchema },
  handle: ({ path, auth }) => removeProviderKey(auth.workspaceId, path.provider),
});
