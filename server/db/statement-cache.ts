import type { Sql } from 'postgres';

/**
 * Which statement texts go out as named prepared statements. Drizzle sends a query it did
 * not `.prepare()` unnamed, and postgres.js then spends two round trips on it (Parse and
 * Describe to learn the parameter types, then Bind and Execute) and PostgreSQL parses and
 * plans it each time. A named one costs that once per connection, then one round trip.
 *
 * postgres.js keeps a connection's prepared statements for the connection's life, so the
 * set is bounded: a text is prepared once it has been seen twice (a recurring statement,
 * not a one-off), while fewer than `limit` texts are; long texts (bulk writes, whose
 * length varies with the rows) never are. Nor are searches (LIKE / ILIKE): after five
 * executions PostgreSQL may settle on a generic plan, and one for a pattern it cannot see
 * cannot use the trigram indexes, so they stay planned for their pattern each time.
 */
export class StatementCache {
  private readonly prepared = new Set<string>();
  private readonly seen = new Set<string>();
  /** Statements sent through the client so far (the latchkey_database_statements_total metric). */
  sent = 0;

  constructor(readonly limit: number) {}

  get size() {
    return this.prepared.size;
  }

  shouldPrepare(text: string): boolean {
    if (this.prepared.has(text)) return true;
    if (this.prepared.size >= this.limit || text.length > MAX_TEXT || SEARCH.test(text)) return false;
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(text);
      return false;
    }
    this.seen.delete(text);
    this.prepared.add(text);
    return true;
  }
}

const MAX_TEXT = 4096;
const SEARCH = /\bi?like\b/i;
const MAX_SEEN = 10_000;

type Options = { prepare?: boolean } & Record<string, unknown>;

/**
 * The postgres.js client Drizzle is given: `unsafe` (every Drizzle query) asks the cache
 * whether to prepare, and the clients of transactions and savepoints do the same.
 */
export function withStatementCache(client: Sql, cache: StatementCache): Sql {
  const unsafe = (text: string, params?: unknown[], opts?: Options) => {
    cache.sent++;
    return client.unsafe(
      text,
      params as never,
      params?.length && !opts?.prepare && cache.shouldPrepare(text) ? { ...opts, prepare: true } : opts,
    );
  };
  const methods = client as unknown as Record<string | symbol, unknown>;
  const scoped =
    (method: 'begin' | 'savepoint') =>
    (...args: unknown[]) => {
      const callback = args.pop() as (tx: Sql) => unknown;
      return (methods[method] as (...a: unknown[]) => unknown)(...args, (tx: Sql) => callback(withStatementCache(tx, cache)));
    };
  const overrides: Record<string | symbol, unknown> = { unsafe, begin: scoped('begin'), savepoint: scoped('savepoint') };
  return new Proxy(client, {
    get: (target, prop) => (prop in overrides && typeof methods[prop] === 'function' ? overrides[prop] : Reflect.get(target, prop)),
  });
}
