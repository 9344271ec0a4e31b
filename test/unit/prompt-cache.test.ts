import { afterEach, describe, expect, it, vi } from 'vitest';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import { DEFAULT_PROMPT_CACHE_TTL_SECONDS, PROMPT_CACHE_TTL_ENV } from '#shared/prompts/cache-settings.ts';
import { promptCacheTtlSeconds } from '#shared/prompts/template-cache.ts';

describe('TtlCache', () => {
  it('answers an entry until its TTL passes, then forgets it', () => {
    const cache = new TtlCache<string>(1_000, 10);
    cache.set('a', 'A', [], { now: 0 });
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops every entry carrying an invalidated tag, and only those', () => {
    const cache = new TtlCache<string>(60_000, 10);
    cache.set('letter?label=prod', 'v1', ['letter', 'intro']);
    cache.set('letter', 'v2', ['letter']);
    cache.set('intro', 'i1', ['intro']);
    cache.set('other', 'o1', ['other']);
    cache.invalidate('intro');
    expect(cache.get('letter?label=prod')).toBeUndefined();
    expect(cache.get('intro')).toBeUndefined();
    expect(cache.get('letter')).toBe('v2');
    expect(cache.get('other')).toBe('o1');
  });

  it('evicts the oldest entry beyond its size', () => {
    const cache = new TtlCache<number>(60_000, 2);
    cache.set('a', 1, ['t']);
    cache.set('b', 2, ['t']);
    cache.set('c', 3, ['t']);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
    cache.invalidate('t');
    expect(cache.size).toBe(0);
  });

  it('does not store an answer loaded while an invalidation happened', () => {
    const cache = new TtlCache<string>(60_000, 10);
    const since = cache.generation;
    cache.invalidate('letter'); // a publish lands while the read is in flight
    cache.set('letter', 'stale', ['letter'], { since });
    expect(cache.get('letter')).toBeUndefined();
    cache.set('letter', 'fresh', ['letter'], { since: cache.generation });
    expect(cache.get('letter')).toBe('fresh');
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new TtlCache<string>(0, 10);
    cache.set('a', 'A', []);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('PROMPT_CACHE_TTL_SECONDS', () => {
  const original = process.env[PROMPT_CACHE_TTL_ENV];
  afterEach(() => {
    if (original === undefined) delete process.env[PROMPT_CACHE_TTL_ENV];
    else process.env[PROMPT_CACHE_TTL_ENV] = original;
  });

  it('defaults to 30 seconds', () => {
    delete process.env[PROMPT_CACHE_TTL_ENV];
    expect(promptCacheTtlSeconds()).toBe(DEFAULT_PROMPT_CACHE_TTL_SECONDS);
    expect(DEFAULT_PROMPT_CACHE_TTL_SECONDS).toBe(30);
  });

  it('takes seconds, 0 switching the cache off', () => {
    process.env[PROMPT_CACHE_TTL_ENV] = '0';
    expect(promptCacheTtlSeconds()).toBe(0);
    process.env[PROMPT_CACHE_TTL_ENV] = '2.5';
    expect(promptCacheTtlSeconds()).toBe(2.5);
  });

  it.each(['ten', '-1', '0x10', '1e3', ' 5', 'Infinity'])('refuses %j, naming the variable', (value) => {
    process.env[PROMPT_CACHE_TTL_ENV] = value;
    expect(() => promptCacheTtlSeconds()).toThrow(
      /PROMPT_CACHE_TTL_SECONDS must be a number of seconds >= 0/,
    );
  });

  it('fails when the GET function loads, not on each read', async () => {
    process.env[PROMPT_CACHE_TTL_ENV] = 'ten';
    vi.resetModules();
    await expect(import('#functions/http/prompt-template-get.ts')).rejects.toThrow(
      /PROMPT_CACHE_TTL_SECONDS/,
    );
  });
});
