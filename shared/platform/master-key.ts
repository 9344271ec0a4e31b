import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { ENV, requireEnv } from './config.ts';
import { readSecretString } from './secrets.ts';

/**
 * The one master key every derived secret comes from (webhook signing secrets, the key that encrypts
 * stored user secrets). Read once per container from Secrets Manager (a secret the stack creates; the
 * local runtime answers GetSecretValue for it from a file in its data directory); the key material is
 * the SHA-256 of the secret's string, so any secret string gives 32 uniform bytes. Never logged.
 */
let loading: Promise<Buffer> | undefined;

async function readMasterKey(): Promise<Buffer> {
  const secret = await readSecretString(requireEnv(ENV.masterKeySecretId));
  if (!secret) throw new Error('The master key secret has no string value');
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** The master key, loaded on first use; a failed read is retried by the next caller. */
export function masterKey(): Promise<Buffer> {
  loading ??= readMasterKey().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** 32 bytes for one purpose (`webhook:<ws>:<id>:<version>`): HMAC-SHA256(master key, purpose). */
export async function deriveKey(purpose: string): Promise<Buffer> {
  return createHmac('sha256', await masterKey())
    .update(purpose, 'utf8')
    .digest();
}

/** Forgets the loaded key (tests that switch secrets). */
export function resetMasterKey(): void {
  loading = undefined;
}

const SEALED_PREFIX = 'v1.';

/**
 * AES-256-GCM with a key derived for `purpose`: `v1.<iv>.<tag>.<ciphertext>` (base64url parts). The
 * purpose is also the associated data, so a value sealed for one purpose does not open for another.
 */
export async function seal(purpose: string, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(purpose), iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return SEALED_PREFIX + [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

/** Opens what `seal` produced for the same purpose; throws when it was altered or sealed otherwise. */
export async function unseal(purpose: string, sealed: string): Promise<string> {
  if (!sealed.startsWith(SEALED_PREFIX)) throw new Error('Not a sealed value');
  const [iv, tag, data] = sealed
    .slice(SEALED_PREFIX.length)
    .split('.')
    .map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !data) throw new Error('Not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', await deriveKey(purpose), iv);
  decipher.setAAD(Buffer.from(purpose, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
