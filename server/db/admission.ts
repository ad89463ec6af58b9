/**
 * How many database operations of this process run at once, and how many may wait: a
 * transaction or a statement outside one holds a connection of the pool for its length, so
 * at most `slots` (the pool's size) run; past them an operation waits its turn, at most
 * `queue` of them and each at most `waitMs`. Beyond either bound it fails at once with
 * DatabaseBusyError (503 with Retry-After to the client) instead of joining an unbounded
 * queue: when the database is slow (a storm of slow queries, a lock held for long) requests
 * are shed, and the memory they hold stays bounded.
 */
export class DatabaseBusyError extends Error {
  readonly code = 'LATCHKEY_DATABASE_BUSY';
  constructor(readonly why: 'queue_full' | 'wait_timeout') {
    super(
      why === 'queue_full' ? 'every database connection is busy and the wait queue is full' : 'no database connection became free in time',
    );
    this.name = 'DatabaseBusyError';
  }
}

interface Waiter {
  grant(): void;
  timer: NodeJS.Timeout;
}

export class Admission {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Operations refused so far (queue full or wait timed out). */
  refused = 0;

  constructor(
    readonly slots: number,
    readonly queue: number,
    readonly waitMs: number,
  ) {}

  /** Operations running and waiting now (metrics, tests). */
  get load() {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` once a slot is free; refuses with DatabaseBusyError past the bounds. */
  async run<T>(work: () => PromiseLike<T>): Promise<T> {
    if (this.running >= this.slots) await this.wait();
    else this.running++;
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private wait(): Promise<void> {
    if (this.waiting.length >= this.queue) {
      this.refused++;
      return Promise.reject(new DatabaseBusyError('queue_full'));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at !== -1) this.waiting.splice(at, 1);
          this.refused++;
          reject(new DatabaseBusyError('wait_timeout'));
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** The slot passes to the oldest waiter (running stays the same), else frees. */
  private release() {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.running--;
  }
}

type Sql = import('postgres').Sql;

/**
 * The pool's client with its operations admitted by `admission`: a transaction (`begin`) and
 * a statement outside one (`unsafe`, what Drizzle sends) each take a slot for their length.
 * Statements inside a transaction use its connection and are not counted again. `current`
 * names the pool's client at the time of each call.
 */
export function withAdmission(current: () => Sql, admission: Admission): Sql {
  const methodOf = (name: 'unsafe' | 'begin') => {
    const client = current();
    return (...a: unknown[]) => (client as unknown as Record<string, (...x: unknown[]) => unknown>)[name]!.apply(client, a);
  };
  // Drizzle awaits `unsafe(...)` or `unsafe(...).values()`: the statement starts on either, once admitted.
  const unsafe = (...args: unknown[]) => {
    let started: Promise<unknown> | null = null;
    const start = (values: boolean) =>
      (started ??= admission.run(() => {
        const q = methodOf('unsafe')(...args) as PromiseLike<unknown> & { values(): PromiseLike<unknown> };
        return values ? q.values() : q;
      }));
    return {
      values: () => start(true),
      then: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => start(false).then(ok, fail),
      catch: (fail?: (e: unknown) => unknown) => start(false).catch(fail),
    };
  };
  const begin = (...args: unknown[]) => admission.run(() => methodOf('begin')(...args) as PromiseLike<unknown>);
  const overrides: Record<string | symbol, unknown> = { unsafe, begin };
  // The client may be replaced (openPostgres starts the pool over after a driver fault): always the current one.
  return new Proxy(current(), {
    get: (_target, prop) => (prop in overrides ? overrides[prop] : Reflect.get(current(), prop)),
  });
}
