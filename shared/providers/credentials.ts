import { deploymentApiKey } from './deployment-credentials.ts';
import { ProviderError } from './errors.ts';
import { workspaceCredential } from './keys.ts';
import { PROVIDER_SETTINGS, type ProviderName } from './providers.ts';

/**
 * Which key and endpoint a call uses, in this order:
 * 1. the workspace's provider key (PUT /api/public/v2/provider-keys/{provider}), with the workspace's
 *    `base_url` when it set one (then called through the guarded outbound client), else the deployment's;
 * 2. the deployment's key (OPENAI_API_KEY / ANTHROPIC_API_KEY from the process environment, else from
 *    the deployment's provider credentials secret: deployment-credentials.ts) and base URL
 *    (OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's own API);
 * 3. neither: the call fails with PROVIDER_AUTH_ERROR before anything is sent.
 */
export interface Credential {
  provider: ProviderName;
  apiKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  /** The base URL is a workspace's: requests go through the outbound guard. */
  guarded: boolean;
  source: 'workspace' | 'deployment';
}

export function deploymentBaseUrl(provider: ProviderName): string {
  const settings = PROVIDER_SETTINGS[provider];
  return (process.env[settings.baseUrlEnv] || settings.defaultBaseUrl).replace(/\/+$/, '');
}

export async function resolveCredential(workspaceId: number, provider: ProviderName): Promise<Credential> {
  const own = await workspaceCredential(workspaceId, provider);
  if (own) {
    return {
      provider,
      apiKey: own.apiKey,
      baseUrl: own.baseUrl ?? deploymentBaseUrl(provider),
      guarded: own.baseUrl !== null,
      source: 'workspace',
    };
  }
  const settings = PROVIDER_SETTINGS[provider];
  const apiKey = await deploymentApiKey(provider);
  if (apiKey) {
    return { provider, apiKey, baseUrl: deploymentBaseUrl(provider), guarded: false, source: 'deployment' };
  }
  throw new ProviderError(
    'PROVIDER_AUTH_ERROR',
    `no ${provider} API key: set the workspace's (PUT /api/public/v2/provider-keys/${provider}) or the deployment's ${settings.apiKeyEnv} (environment or provider credentials secret)`,
  );
}
