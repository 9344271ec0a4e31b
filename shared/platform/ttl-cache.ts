/**
 * A small in-memory cache with a time to live, a size bound and tags: an entry carries the tags it
 * depends on (for a prompt template, the template and the snippets it expanded), and `invalidate(tag)`
 * drops every entry that carries the tag. Used by the prompt read cache and the body-key check.
 * Eviction is oldest-first (a Map keeps insertion order), which is enough for a cache whose entries all
 * live for the same short TTL.
 */
interface Entry<V> {
  value: V;
  expiresAt: number;
  tags: readonly string[];
}

export class TtlCache<V> {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  private invalidations = 0;

  constructor(ttlMs: number, maxEntries: number) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Changes with every `invalidate`. A reader notes it before loading and passes it to `set`, so that
   * an answer loaded while a change invalidated the cache is not stored (it may predate the change).
   */
  get generation(): number {
    return this.invalidations;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.delete(key);
    return undefined;
  }

  set(
    key: string,
    value: V,
    tags: readonly string[] = [],
    opts: { since?: number; now?: number } = {},
  ): void {
    if (this.ttlMs <= 0 || (opts.since !== undefined && opts.since !== this.invalidations)) return;
    const now = opts.now ?? Date.now();
    this.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: now + this.ttlMs, tags });
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys) keys.add(key);
      else this.byTag.set(tag, new Set([key]));
    }
  }

  /** Drops every entry tagged `tag`. */
  invalidate(tag: string): void {
    this.invalidations++;
    for (const key of this.byTag.get(tag) ?? []) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.byTag.clear();
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }
}
