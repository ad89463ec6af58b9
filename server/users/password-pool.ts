import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import argon2 from 'argon2';
import type { PasswordHashing } from '../deps';
import { AppError } from '../http/errors';
import { needsRehash, OWASP_ARGON2_COST, workerJob, type Argon2Cost, type PasswordHasher, type WorkerJob } from '../crypto/passwords';

/** Resolved from the working directory, like the migrations: the same under tsx, Vitest and Next.js. */
const PASSWORD_WORKER_FILE = path.resolve(process.cwd(), 'server/users/password-worker.mjs');

export interface PasswordPoolOptions {
  /** Password jobs that run at once; default os.availableParallelism(). */
  threads?: number;
  /** Jobs that may wait for one of them; one more is refused with 503. Default 16 per thread. */
  queue?: number;
  /** The argon2id cost of new digests; default OWASP's baseline (m=19 MiB, t=2, p=1). */
  argon2?: Argon2Cost;
}

/**
 * Every password hash and verify goes through here, never on the event loop: bcrypt,
 * scrypt and pbkdf2 run in worker threads (password-worker.mjs); argon2 (a native addon)
 * already runs on libuv's thread pool and stays there, but holds a slot like the others so
 * that one bound covers all password work. At most `threads` jobs run at once and `queue`
 * wait; past that the job is refused with 503 SERVICE_UNAVAILABLE and Retry-After, so a
 * burst of sign-ins sheds load instead of stalling every request behind it.
 */
export class PasswordPool implements PasswordHashing {
  readonly threads: number;
  readonly queueLimit: number;
  readonly argon2: Argon2Cost;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly idle: Worker[] = [];
  private readonly workers = new Set<Worker>();
  private nextId = 0;
  /** Moving average of a job's duration, for Retry-After. */
  private averageMs = 250;
  private dummy: Promise<string> | null = null;

  constructor(opts: PasswordPoolOptions = {}) {
    this.threads = Math.max(1, opts.threads ?? availableParallelism());
    this.queueLimit = Math.max(0, opts.queue ?? 16 * this.threads);
    this.argon2 = opts.argon2 ?? OWASP_ARGON2_COST;
  }

  /** Jobs running and waiting now. */
  get load() {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** An argon2id digest of a new password at the configured cost (PASSWORD_ARGON2_*). */
  hash(password: string): Promise<string> {
    return this.run(() => argon2.hash(password, { type: argon2.argon2id, ...this.argon2 }));
  }

  /** Whether a stored digest should be re-hashed at the configured cost after a successful check. */
  needsRehash(hasher: PasswordHasher, digest: string): boolean {
    return needsRehash(hasher, digest, this.argon2);
  }

  /** Whether the password matches the digest; false for a digest that does not parse. */
  verify(password: string, digest: string, hasher: PasswordHasher): Promise<boolean> {
    if (hasher === 'argon2id' || hasher === 'argon2i') return this.run(() => argon2.verify(digest, password).catch(() => false));
    const job = workerJob(hasher, digest, password);
    if (!job) return Promise.resolve(false);
    return this.run(() => this.inWorker(job));
  }

  /**
   * An argon2id digest of a random password, made with the same parameters as real ones:
   * a password check for an unknown identifier (or a user without a password) verifies
   * against it, so it takes as long as a real check and always fails.
   */
  dummyDigest(): Promise<string> {
    if (!this.dummy) {
      const made = this.hash(`dummy-${randomBytes(16).toString('hex')}`);
      this.dummy = made;
      made.catch(() => {
        if (this.dummy === made) this.dummy = null;
      });
    }
    return this.dummy;
  }

  /**
   * Takes one of the `threads` slots, waiting in the bounded queue if none is free; throws
   * 503 when the queue is full. The returned function gives the slot back (once).
   */
  async acquire(): Promise<() => void> {
    if (this.running < this.threads) this.running++;
    else if (this.waiting.length < this.queueLimit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw this.busy();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next) next();
      else this.running--;
    };
  }

  async close(): Promise<void> {
    const all = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private busy(): AppError {
    const backlog = this.running + this.waiting.length;
    const retryAfter = Math.min(60, Math.max(1, Math.ceil((backlog * this.averageMs) / this.threads / 1000)));
    return new AppError('SERVICE_UNAVAILABLE', {
      message: 'The server is busy; retry after the given delay.',
      meta: { reason: 'busy', retry_after: retryAfter },
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  private async run<T>(job: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
      release();
    }
  }

  private spawn(): Worker {
    const worker = new Worker(PASSWORD_WORKER_FILE, { execArgv: [] });
    this.workers.add(worker);
    // A failure is reported to the job in flight (below); an idle worker that fails is retired.
    worker.on('error', () => {});
    worker.on('exit', () => {
      this.workers.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return worker;
  }

  /** Runs in an idle worker: there is one, or room for one, since worker jobs hold slots. */
  private inWorker(job: WorkerJob): Promise<boolean> {
    const worker = this.idle.pop() ?? this.spawn();
    const id = ++this.nextId;
    return new Promise<boolean>((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (msg: { id: number; ok: boolean }) => {
        if (msg.id !== id) return;
        done();
        worker.unref();
        if (this.workers.has(worker)) this.idle.push(worker);
        resolve(msg.ok === true);
      };
      const onError = (err: unknown) => {
        done();
        reject(new Error('The password worker failed.', { cause: err }));
        void worker.terminate();
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`The password worker exited (${code}).`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      // Keeps the process alive while a job is in flight (a CLI may await nothing else).
      worker.ref();
      worker.postMessage({ id, job });
    });
  }
}
