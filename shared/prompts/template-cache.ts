import { TtlCache } from './cache.ts';

/**
 * The default cache of GET /prompt-templates/{identifier}: answers kept in the function's memory for
 * PROMPT_CACHE_TTL_SECONDS (default 30 s, 0 switches it off), keyed by workspace, identifier and every
 * query parameter. An entry is tagged with its template and every snippet it expanded; a publish or a
 * label change made through this container drops the entries of that template at once, other
 * containers see the change when their entries expire.
 */
export const PROMPT_CACHE_TTL_ENV = 'PROMPT_CACHE_TTL_SECONDS';
export const DEFAULT_PROMPT_CACHE_TTL_SECONDS = 30;
const MAX_ENTRIES = 2_000;

let cache: TtlCache<unknown> | undefined;

export function promptCacheTtlSeconds(): number {
  const configured = process.env[PROMPT_CACHE_TTL_ENV];
  if (configured === undefined || configured === '') return DEFAULT_PROMPT_CACHE_TTL_SECONDS;
  const seconds = Number(configured);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new Error(`${PROMPT_CACHE_TTL_ENV} must be a number of seconds >= 0, got "${configured}"`);
  }
  return seconds;
}

export function templateCache(): TtlCache<unknown> {
  cache ??= new TtlCache(promptCacheTtlSeconds() * 1000, MAX_ENTRIES);
  return cache;
}

/** The tag of every cached answer that depends on the template `name` of a workspace. */
export const templateTag = (workspaceId: number, name: string) => `${workspaceId}\u0000${name}`;

/** Drops this container's cached answers that depend on the template (after a publish or label change). */
export function invalidateTemplate(workspaceId: number, name: string): void {
  cache?.invalidate(templateTag(workspaceId, name));
}

/** Forgets the cache and re-reads the TTL on next use (tests). */
export function resetTemplateCache(): void {
  cache = undefined;
}
