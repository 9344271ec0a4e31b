import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '#shared/platform/config.ts';
import { resolveCredential } from '#shared/providers/credentials.ts';
import {
  DEPLOYMENT_CREDENTIALS_TTL_MS,
  deploymentApiKey,
  resetDeploymentCredentials,
} from '#shared/providers/deployment-credentials.ts';
import { ProviderError } from '#shared/providers/errors.ts';

/**
 * Which key a node's LLM call uses: the workspace's, else the deployment's (the process environment,
 * then the provider credentials secret), else PROVIDER_AUTH_ERROR; no key in any error.
 */
const workspaceKeys = vi.hoisted(() => new Map<string, { apiKey: string; baseUrl: string | null }>());
vi.mock('#shared/providers/keys.ts', () => ({
  workspaceCredential: async (workspaceId: number, provider: string) =>
    workspaceKeys.get(`${workspaceId}:${provider}`),
}));

const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:provider-credentials-AbCdEf';
const secrets = mockClient(SecretsManagerClient);
afterAll(() => secrets.restore());
beforeEach(() => {
  secrets.reset();
  resetDeploymentCredentials();
  workspaceKeys.clear();
  for (const name of [ENV.openaiApiKey, ENV.anthropicApiKey, ENV.openaiBaseUrl, ENV.anthropicBaseUrl]) {
    delete process.env[name];
  }
  process.env[ENV.providerCredentialsSecretId] = SECRET_ID;
});

const secretHolds = (value: string) => secrets.on(GetSecretValueCommand).resolves({ SecretString: value });

async function failure(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('resolveCredential', () => {
  it("uses the workspace's key first, without reading the secret", async () => {
    workspaceKeys.set('7:openai', { apiKey: 'sk-workspace', baseUrl: null });
    process.env[ENV.openaiApiKey] = 'sk-env';
    secretHolds('{"OPENAI_API_KEY": "sk-secret"}');
    expect(await resolveCredential(7, 'openai')).toMatchObject({
      apiKey: 'sk-workspace',
      source: 'workspace',
    });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it("then the deployment's key from the process environment, without reading the secret", async () => {
    process.env[ENV.anthropicApiKey] = 'sk-ant-env';
    secretHolds('{"ANTHROPIC_API_KEY": "sk-ant-secret"}');
    expect(await resolveCredential(7, 'anthropic')).toEqual({
      provider: 'anthropic',
      apiKey: 'sk-ant-env',
      baseUrl: 'https://api.anthropic.com',
      guarded: false,
      source: 'deployment',
    });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it("then the deployment's key from the secret, read by PROVIDER_CREDENTIALS_SECRET_ID", async () => {
    process.env[ENV.openaiBaseUrl] = 'https://llm.example.com/v1/';
    secretHolds('{"OPENAI_API_KEY": "sk-secret", "ANTHROPIC_API_KEY": "sk-ant-secret"}');
    expect(await resolveCredential(7, 'openai')).toEqual({
      provider: 'openai',
      apiKey: 'sk-secret',
      baseUrl: 'https://llm.example.com/v1',
      guarded: false,
      source: 'deployment',
    });
    expect(await resolveCredential(7, 'anthropic')).toMatchObject({ apiKey: 'sk-ant-secret' });
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([
      { SecretId: SECRET_ID },
    ]);
  });

  it.each([
    ['the secret has no key for the provider', '{"ANTHROPIC_API_KEY": "sk-ant-secret"}'],
    ['the secret is as created', '{}'],
    ['the key in the secret is empty', '{"OPENAI_API_KEY": ""}'],
  ])('fails with PROVIDER_AUTH_ERROR when %s', async (_, value) => {
    secretHolds(value);
    const error = await failure(resolveCredential(7, 'openai'));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).typedMessage).toMatch(/^PROVIDER_AUTH_ERROR: no openai API key/);
  });

  it('fails with PROVIDER_AUTH_ERROR without reading anything when no secret is configured', async () => {
    delete process.env[ENV.providerCredentialsSecretId];
    const error = await failure(resolveCredential(7, 'anthropic'));
    expect((error as ProviderError).type).toBe('PROVIDER_AUTH_ERROR');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it.each([
    ['not JSON', 'sk-live-not-json-1234'],
    ['not an object', '"sk-live-a-string-1234"'],
    ['an object of non-strings', '{"OPENAI_API_KEY": ["sk-live-in-array-1234"]}'],
  ])('refuses a secret that is %s as PROVIDER_AUTH_ERROR, never quoting it', async (_, value) => {
    secretHolds(value);
    const error = await failure(resolveCredential(7, 'openai'));
    expect((error as ProviderError).typedMessage).toBe(
      `PROVIDER_AUTH_ERROR: the deployment's provider credentials secret is not a JSON object of strings ("OPENAI_API_KEY": "...", "ANTHROPIC_API_KEY": "...")`,
    );
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('sk-live');
  });

  it('throws a plain error naming the failure (the queue retries it) when the secret cannot be read', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    const error = await failure(resolveCredential(7, 'openai'));
    expect(error).not.toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      "Could not read the deployment's provider credentials (PROVIDER_CREDENTIALS_SECRET_ID): AccessDeniedException",
    );
  });
});

describe('deploymentApiKey', () => {
  it(`reads the secret once per ${DEPLOYMENT_CREDENTIALS_TTL_MS / 60_000} minutes, so a new value applies without a redeploy`, async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: '{"OPENAI_API_KEY": "sk-old"}' })
      .resolves({ SecretString: '{"OPENAI_API_KEY": "sk-new"}' });
    const start = 1_000_000;
    expect(await deploymentApiKey('openai', start)).toBe('sk-old');
    expect(await deploymentApiKey('anthropic', start + 1)).toBeUndefined();
    expect(await deploymentApiKey('openai', start + DEPLOYMENT_CREDENTIALS_TTL_MS - 1)).toBe('sk-old');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(await deploymentApiKey('openai', start + DEPLOYMENT_CREDENTIALS_TTL_MS)).toBe('sk-new');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('shares one read between concurrent calls, and keeps no failed read', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }))
      .resolves({ SecretString: '{"OPENAI_API_KEY": "sk-secret"}' });
    const first = await Promise.allSettled([deploymentApiKey('openai'), deploymentApiKey('anthropic')]);
    expect(first.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await deploymentApiKey('openai')).toBe('sk-secret');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});
