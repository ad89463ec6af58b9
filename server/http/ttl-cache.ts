/** A small bounded map whose entries expire: hot-path lookups with a bounded staleness. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  get(key: string, now: number): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, now: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Named caches of one runtime, so modules get process-wide caches without globals shared across tests. */
export class CacheRegistry {
  private readonly caches = new Map<string, TtlCache<unknown>>();

  get<V>(name: string, ttlMs: number, maxEntries?: number): TtlCache<V> {
    let cache = this.caches.get(name);
    if (!cache) this.caches.set(name, (cache = new TtlCache<unknown>(ttlMs, maxEntries)));
    return cache as TtlCache<V>;
  }

  /** Forgets one entry of a cache, if this runtime has that cache. */
  drop(name: string, key: string): void {
    this.caches.get(name)?.delete(key);
  }
}
