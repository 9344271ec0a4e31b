import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { onToolChange } from '#shared/tools/changes.ts';
import {
  DEFAULT_PROMPT_CACHE_TTL_SECONDS,
  PROMPT_CACHE_TTL_ENV,
  parsePromptCacheTtl,
} from './cache-settings.ts';

/**
 * The default cache of GET /prompt-templates/{identifier}: answers kept in the function's memory for
 * PROMPT_CACHE_TTL_SECONDS (default 30 s, 0 switches it off), keyed by workspace, identifier and every
 * query parameter. An entry is tagged with its template and every snippet it expanded; a publish or a
 * label change made in this container drops the entries of that template at once, and a new version of a
 * registry tool those of the templates that expanded it (tool-refs.ts). In AWS each route is
 * its own function, so a change made through another function reaches this cache only when its entries
 * expire: the TTL is what bounds staleness there.
 */
const MAX_ENTRIES = 2_000;

export function promptCacheTtlSeconds(): number {
  const configured = process.env[PROMPT_CACHE_TTL_ENV];
  if (configured === undefined || configured === '') return DEFAULT_PROMPT_CACHE_TTL_SECONDS;
  return parsePromptCacheTtl(configured);
}

// Read at module load: a bad value stops the cold start with its name in the error, rather than
// failing each GET that reaches the cache.
let ttlSeconds = promptCacheTtlSeconds();
let cache: TtlCache<unknown> | undefined;

export function templateCache(): TtlCache<unknown> {
  cache ??= new TtlCache(ttlSeconds * 1000, MAX_ENTRIES);
  return cache;
}

/** The tag of every cached answer that depends on the template `name` of a workspace. */
export const templateTag = (workspaceId: number, name: string) => `${workspaceId}\u0000${name}`;

/**
 * The tag of every cached answer that expanded the registry tool `name` of a workspace (and of the
 * tool's cached versions): distinct from every template tag, which starts with the workspace id.
 */
export const toolTag = (workspaceId: number, name: string) => `tool\u0000${workspaceId}\u0000${name}`;

/** Drops this container's cached expansions of a registry tool (after a new version or a label move). */
function invalidateTool(workspaceId: number, name: string): void {
  cache?.invalidate(toolTag(workspaceId, name));
}
onToolChange(invalidateTool);

/** Drops this container's cached answers that depend on the template (after a publish or label change). */
export function invalidateTemplate(workspaceId: number, name: string): void {
  cache?.invalidate(templateTag(workspaceId, name));
}

/** A client's `Cache-Control: no-cache` asks for a fresh read (the answer is then cached again). */
export const wantsFreshRead = (headers: Readonly<Record<string, string>>): boolean =>
  /\bno-cache\b/i.test(headers['cache-control'] ?? '');

/** Forgets the cache and reads the TTL again (tests). */
export function resetTemplateCache(): void {
  ttlSeconds = promptCacheTtlSeconds();
  cache = undefined;
}
