import { notFound } from '#shared/platform/errors.ts';
import { masterKey, seal, unseal } from '#shared/platform/master-key.ts';
import { outboundUrl } from '#shared/platform/outbound-http.ts';
import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { ProviderError } from './errors.ts';
import {
  deleteProviderKey,
  getProviderKey,
  listProviderKeys,
  type ProviderKeyRecord,
  putProviderKey,
} from './keys-repository.ts';
import { isProviderName, PROVIDERS, type ProviderName } from './providers.ts';

/**
 * A workspace's own provider keys (PUT/GET/DELETE /api/public/v2/provider-keys/{provider}): write-only
 * (an answer shows the last four characters, never the key), sealed at rest with a key derived from the
 * master key for `provider-key:<ws>:<provider>` (so a sealed value opens for that workspace and provider
 * only). A workspace `base_url` passes the outbound guard's registration check here and is called
 * through the guarded client.
 */
export const MIN_API_KEY_LENGTH = 8;
export const MAX_API_KEY_LENGTH = 1024;
export const HINT_LENGTH = 4;

const apiKeySchema = z
  .string()
  .check(
    z.minLength(MIN_API_KEY_LENGTH, `must be at least ${MIN_API_KEY_LENGTH} characters`),
    z.maxLength(MAX_API_KEY_LENGTH, `must be at most ${MAX_API_KEY_LENGTH} characters`),
    z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  );

const baseUrlSchema = z.pipe(
  outboundUrl().check(z.refine((text) => !/[?#]/.test(text), 'must not have a query or fragment')),
  z.transform((text) => text.replace(/\/+$/, '')),
);

export const putProviderKeyBodySchema = z.strictObject({
  api_key: apiKeySchema,
  /** The workspace's endpoint: for openai the API root with its version (`https://host/v1`), for anthropic without (`https://host`). */
  base_url: z.nullish(baseUrlSchema),
});
export type PutProviderKeyBody = z.output<typeof putProviderKeyBodySchema>;

export const providerPathSchema = z.object({ provider: z.string().check(z.minLength(1), z.maxLength(64)) });

export const providerKeyViewSchema = z
  .object({
    provider: z.enum(PROVIDERS),
    /** The key's last four characters, after `...`. */
    api_key_hint: z.string(),
    base_url: z.nullable(z.string()),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'ProviderKey' });
export type ProviderKeyView = z.infer<typeof providerKeyViewSchema>;

export const providerKeyAnswerSchema = z.object({
  success: z.literal(true),
  provider_key: providerKeyViewSchema,
});
export const providerKeyListSchema = z.object({
  success: z.literal(true),
  provider_keys: z.array(providerKeyViewSchema),
});

const purpose = (workspaceId: number, provider: ProviderName) => `provider-key:${workspaceId}:${provider}`;

export const hintOf = (apiKey: string) => `...${apiKey.slice(-HINT_LENGTH)}`;

function toView(record: ProviderKeyRecord): ProviderKeyView {
  return {
    provider: record.provider,
    api_key_hint: record.keyHint,
    base_url: record.baseUrl,
    created_at: toIso(record.createdAt),
    updated_at: toIso(record.updatedAt),
  };
}

/** A provider named in a path: one of PROVIDERS, else 404 (there is no such provider key to address). */
export function requireProvider(name: string): ProviderName {
  const lower = name.toLowerCase();
  if (!isProviderName(lower)) {
    throw notFound(`Unknown provider ${name.slice(0, 64)}: provider keys exist for ${PROVIDERS.join(', ')}`);
  }
  return lower;
}

const keyNotFound = (provider: ProviderName) => notFound(`No ${provider} provider key is set`);

export async function setProviderKey(
  workspaceId: number,
  providerName: string,
  body: PutProviderKeyBody,
  now = Date.now(),
) {
  const provider = requireProvider(providerName);
  const record = await putProviderKey(
    {
      workspaceId,
      provider,
      keySealed: await seal(purpose(workspaceId, provider), body.api_key),
      keyHint: hintOf(body.api_key),
      baseUrl: body.base_url ?? null,
    },
    now,
  );
  return { success: true as const, provider_key: toView(record) };
}

export async function listWorkspaceProviderKeys(workspaceId: number) {
  const records = await listProviderKeys(workspaceId);
  const known = records.filter((record) => isProviderName(record.provider));
  return { success: true as const, provider_keys: known.map(toView) };
}

export async function getProviderKeyView(workspaceId: number, providerName: string) {
  const provider = requireProvider(providerName);
  const record = await getProviderKey(workspaceId, provider);
  if (!record) throw keyNotFound(provider);
  return { success: true as const, provider_key: toView(record) };
}

export async function removeProviderKey(workspaceId: number, providerName: string) {
  const provider = requireProvider(providerName);
  if (!(await deleteProviderKey(workspaceId, provider))) throw keyNotFound(provider);
  return { success: true as const };
}

/** The workspace's own credential for a provider, opened; undefined when it set none. */
export async function workspaceCredential(
  workspaceId: number,
  provider: ProviderName,
): Promise<{ apiKey: string; baseUrl: string | null } | undefined> {
  const record = await getProviderKey(workspaceId, provider);
  if (!record) return undefined;
  // A master key that cannot be read is a fault (retried); a sealed key that does not open is the
  // workspace's to fix (the master key was replaced, or the item altered).
  await masterKey();
  let apiKey: string;
  try {
    apiKey = await unseal(purpose(workspaceId, provider), record.keySealed);
  } catch {
    throw new ProviderError(
      'PROVIDER_AUTH_ERROR',
      `the workspace's ${provider} key cannot be opened (the master key was replaced?): set it again with PUT /api/public/v2/provider-keys/${provider}`,
    );
  }
  return { apiKey, baseUrl: record.baseUrl };
}
