import { ENV } from '#shared/platform/config.ts';
import { readSecretString } from '#shared/platform/secrets.ts';
import { ProviderError } from './errors.ts';
import { PROVIDER_SETTINGS, type ProviderName } from './providers.ts';

/**
 * The deployment's own provider keys, for workspaces that set none: the process environment first
 * (OPENAI_API_KEY / ANTHROPIC_API_KEY: how `npm start` and the tests set them), then the secret named by
 * PROVIDER_CREDENTIALS_SECRET_ID (how the stack passes them: a JSON object keyed by those same names,
 * `{}` until the operator fills it). The secret is read on first need and kept for
 * DEPLOYMENT_CREDENTIALS_TTL_MS per container, so a new value applies within that time without a
 * redeploy; a failed read is not kept (the next call reads again). No key ever reaches a log or an error.
 */
export const DEPLOYMENT_CREDENTIALS_TTL_MS = 5 * 60_000;

interface Loaded {
  at: number;
  keys: Promise<Readonly<Record<string, string>>>;
}

let loaded: Loaded | undefined;

/** The deployment's key for `provider`, or undefined when it has none. */
export async function deploymentApiKey(
  provider: ProviderName,
  now = Date.now(),
): Promise<string | undefined> {
  const name = PROVIDER_SETTINGS[provider].apiKeyEnv;
  const fromEnv = process.env[name];
  if (fromEnv) return fromEnv;
  const secretId = process.env[ENV.providerCredentialsSecretId];
  if (!secretId) return undefined;
  if (!loaded || now - loaded.at >= DEPLOYMENT_CREDENTIALS_TTL_MS) {
    const current: Loaded = { at: now, keys: readKeys(secretId) };
    loaded = current;
    current.keys.catch(() => {
      if (loaded === current) loaded = undefined;
    });
  }
  const value = (await loaded.keys)[name];
  return value || undefined;
}

/** Forgets the secret's value read so far (tests that change it). */
export function resetDeploymentCredentials(): void {
  loaded = undefined;
}

async function readKeys(secretId: string): Promise<Readonly<Record<string, string>>> {
  let text: string;
  try {
    text = await readSecretString(secretId);
  } catch (error) {
    // A transient failure (throttling, network) is worth another delivery: a plain error, whose
    // message names the failure only (a Secrets Manager error carries no secret value).
    throw new Error(
      `Could not read the deployment's provider credentials (${ENV.providerCredentialsSecretId}): ${(error as Error).name}`,
    );
  }
  // Parse errors quote the text they failed on: never shown, as the text is the keys.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const valid =
    parsed !== null &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => typeof value === 'string');
  if (!valid) {
    throw new ProviderError(
      'PROVIDER_AUTH_ERROR',
      `the deployment's provider credentials secret is not a JSON object of strings (${Object.values(
        PROVIDER_SETTINGS,
      )
        .map((settings) => `"${settings.apiKeyEnv}": "..."`)
        .join(', ')})`,
    );
  }
  return parsed as Record<string, string>;
}
