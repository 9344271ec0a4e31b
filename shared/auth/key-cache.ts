import type { AuthContext } from '#shared/platform/auth-context.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#shared/platform/config.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { findApiKeyByHash, hashApiKey } from './api-keys.ts';

/**
 * The key check of routes that carry the key in the JSON body (API Gateway's authorizer reads only
 * headers): the same lookup as the authorizer, and the same caching of its decision. API Gateway keeps
 * an authorizer decision per key for AUTHORIZER_CACHE_TTL_SECONDS; this cache keeps one per container for
 * as long, so a revoked key keeps working on a route of either kind for at most that TTL, and an unknown
 * key stays refused for as long. Entries are keyed by the key's SHA-256, never by the key, and at most
 * MAX_CACHED_KEYS are kept (the oldest are dropped first), so a flood of made-up keys cannot grow memory.
 */
export const MAX_CACHED_KEYS = 1000;

/** Each key's decision by its hash: its context, or null for a refused key. */
const decisions = new TtlCache<AuthContext | null>(AUTHORIZER_CACHE_TTL_SECONDS * 1000, MAX_CACHED_KEYS);

/** The key's workspace and permissions; undefined for an unknown or revoked key. */
export async function authenticateApiKey(key: string, now = Date.now()): Promise<AuthContext | undefined> {
  const hash = hashApiKey(key);
  const cached = decisions.get(hash, now);
  if (cached !== undefined) return cached ?? undefined;
  const auth = await findApiKeyByHash(hash);
  decisions.set(hash, auth ?? null, [], { now });
  return auth;
}

/** Forgets every cached decision (tests). */
export function clearKeyCache(): void {
  decisions.clear();
}
