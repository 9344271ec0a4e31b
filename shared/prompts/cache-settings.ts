/**
 * The setting of the GET function's cache (template-cache.ts), spelled once for the function and for
 * the CDK stack that sets it. Free of side effects: the CDK app imports it.
 */
export const PROMPT_CACHE_TTL_ENV = 'PROMPT_CACHE_TTL_SECONDS';
export const DEFAULT_PROMPT_CACHE_TTL_SECONDS = 30;

/** Seconds >= 0 written as a plain decimal (`30`, `2.5`, `0` switches the cache off). */
export function parsePromptCacheTtl(text: string, what = PROMPT_CACHE_TTL_ENV): number {
  if (!/^\d+(\.\d+)?$/.test(text)) {
    throw new Error(`${what} must be a number of seconds >= 0 (0 switches the cache off), got "${text}"`);
  }
  return Number(text);
}
