import { httpRoute } from '#shared/platform/http.ts';
import {
  providerKeyAnswerSchema,
  providerPathSchema,
  putProviderKeyBodySchema,
  setProviderKey,
} from '#shared/providers/keys.ts';

/**
 * PUT /api/public/v2/provider-keys/{provider}: sets (or replaces) the workspace's key for an LLM
 * provider, with an optional base URL. Write-only: the answer shows the key's last four characters.
 */
export const handler = httpRoute({
  path: providerPathSchema,
  body: putProviderKeyBodySchema,
  // `api_key` is the provider key to store, not the caller's key (which is in the X-API-KEY header).
  bodyApiKeyIsData: true,
  permission: ['provider_keys', 'edit'],
  responses: { 200: providerKeyAnswerSchema },
  handle: ({ path, body, auth }) => setProviderKey(auth.workspaceId, path.provider, body),
});
