import type { AuthContext } from '#shared/platform/auth-context.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#shared/platform/config.ts';
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

interface Decision {
  expiresAt: number;
  auth: AuthContext | undefined;
}

const decisions = new Map<string, Decision>();

/** The key's workspace and permissions; undefined for an unknown or revoked key. */
export async function authenticateApiKey(key: string, now = Date.now()): Promise<AuthContext | undefined> {
  const hash = hashApiKey(key);
  const cached = decisions.get(hash);
  if (cached && cached.expiresAt > now) return cached.auth;
  const auth = await findApiKeyByHash(hash);
  decisions.delete(hash); // re-inserted last: Map order is then oldest first
  decisions.set(hash, { expiresAt: now + AUTHORIZER_CACHE_TTL_SECONDS * 1000, auth });
  while (decisions.size > MAX_CACHED_KEYS) decisions.delete(decisions.keys().next().value as string);
  return auth;
}

/** Forgets every cached decision (tests). */
export function clearKeyCache(): void {
  decisions.clear();
}
