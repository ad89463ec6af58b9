// A password-hashing worker thread (see password-pool.ts). Plain JavaScript so that it
// loads the same under tsx (`npm start`, `npm run api`), Vitest and Next.js, none of
// which hands its TypeScript loader to worker threads alike.
//
// It runs one job at a time, synchronously: bcryptjs is pure JavaScript, and the sync
// scrypt/pbkdf2 keep the work on this thread instead of libuv's small shared pool (which
// also serves file and DNS lookups). Digests are parsed by the caller; a job carries only
// the parameters and answers whether the password matches.
import { Buffer } from 'node:buffer';
import { pbkdf2Sync, scryptSync, timingSafeEqual } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

const equalBytes = (a, b) => a.length === b.length && timingSafeEqual(a, b);

function run(job) {
  switch (job.kind) {
    case 'bcrypt':
      return bcrypt.compareSync(job.password, job.digest);
    case 'scrypt': {
      const expected = Buffer.from(job.expectedHex, 'hex');
      const key = scryptSync(job.password, job.salt, expected.length, {
        N: job.N,
        r: job.r,
        p: job.p,
        maxmem: 256 * job.N * job.r + 1024 * 1024,
      });
      return equalBytes(key, expected);
    }
    case 'pbkdf2_sha256': {
      const expected = Buffer.from(job.expectedBase64, 'base64');
      return equalBytes(pbkdf2Sync(job.password, job.salt, job.iterations, expected.length, 'sha256'), expected);
    }
    default:
      return false;
  }
}

parentPort.on('message', ({ id, job }) => {
  let ok = false;
  try {
    ok = run(job) === true;
  } catch {
    // Parameters the library refuses never verify (as before, on the main thread).
    ok = false;
  }
  parentPort.postMessage({ id, ok });
});
