/** A small bounded map whose entries expire: hot-path lookups with a bounded staleness. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  /** Fill guard (begin/setIfUnchanged): the sequence number of each recent delete, bounded. */
  private readonly deleted = new Map<string, number>();
  private seq = 0;
  /** Deletes older than this were forgotten: a fill begun before it is refused. */
  private floor = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

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
    this.deleted.delete(key);
    this.deleted.set(key, ++this.seq);
    if (this.deleted.size > this.maxEntries) {
      const [oldest, at] = this.deleted.entries().next().value!;
      this.deleted.delete(oldest);
      this.floor = at;
    }
  }

  /**
   * For a fill from the database: take a ticket before reading, then setIfUnchanged stores
   * the value only if the key was not deleted (invalidated) meanwhile — a read that raced a
   * change and an invalidation never puts the old state back.
   */
  begin(): number {
    return this.seq;
  }

  setIfUnchanged(key: string, value: V, now: number, ticket: number): boolean {
    if (ticket < this.floor || (this.deleted.get(key) ?? 0) > ticket) return false;
    this.set(key, value, now);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.floor = ++this.seq;
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
