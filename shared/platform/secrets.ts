import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ENV } from './config.ts';

/**
 * The string value of a Secrets Manager secret (by name or ARN), from the service's Secrets Manager
 * (SECRETS_ENDPOINT locally, the region's in AWS). Throws when the secret has no string value. The value
 * is never logged; callers cache it as they see fit.
 */
export async function readSecretString(secretId: string): Promise<string> {
  const client = new SecretsManagerClient({ endpoint: process.env[ENV.secretsEndpoint] || undefined });
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (answer.SecretString === undefined) throw new Error(`The secret ${secretId} has no string value`);
    return answer.SecretString;
  } finally {
    client.destroy();
  }
}
