import { and, eq, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { rowsOf } from '../db/rows';
import { idempotencyRecords } from '../db/schema';
import { AppError, isAppError } from './errors';
import { sha256Hex } from '../crypto/secrets';
import { idempotencyKeyLockSql } from './statements';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  /** Text as stored; a binary or streamed answer (no BAPI route has one) passes through unstored. */
  body: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
}

/**
 * Runs a POST at most once per Idempotency-Key and credential: a record replays only to
 * the key that made it (after the router's authorization of this request). The handler, its events and the stored
 * response commit in one transaction, so a crash can neither lose the record nor run
 * the change twice. A concurrent request with the same key gets 409 instead of waiting.
 */
export async function runIdempotent(
  deps: Deps,
  args: { instanceId: string; credentialId: string; key: string; method: string; path: string; rawBody: string },
  run: (deps: Deps) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (!KEY_RE.test(args.key)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
      meta: { param: 'Idempotency-Key', reason: 'invalid' },
    });
  }
  const fingerprint = sha256Hex(`${args.method}\n${args.path}\n${args.rawBody}`);
  const now = deps.clock.now();
  const outcome = await deps.db.transaction(async (tx): Promise<StoredResponse | { refused: AppError }> => {
    const lock = await tx.execute(idempotencyKeyLockSql(args.instanceId, args.credentialId, args.key));
    if (!rowsOf<{ locked: boolean }>(lock)[0]?.locked) throw new AppError('IDEMPOTENCY_KEY_IN_USE');
    const where = and(
      eq(idempotencyRecords.instanceId, args.instanceId),
      eq(idempotencyRecords.credentialId, args.credentialId),
      eq(idempotencyRecords.key, args.key),
    );
    const [existing] = await tx.select().from(idempotencyRecords).where(where);
    if (existing && existing.createdAt > now - IDEMPOTENCY_TTL_MS) {
      if (existing.fingerprint !== fingerprint) throw new AppError('IDEMPOTENCY_KEY_MISMATCH');
      return {
        status: existing.status,
        body: deps.cipher.decrypt(existing.body),
        headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
      };
    }
    let response: StoredResponse;
    try {
      response = await run({ ...deps, db: tx });
    } catch (e) {
      // A refused request is not stored, but what it committed on purpose before refusing
      // (a revocation on refresh-token reuse) must stand: its own nested transaction has
      // already rolled back anything partial.
      if (isAppError(e)) return { refused: e };
      throw e;
    }
    if (typeof response.body !== 'string') return response;
    // Encrypted: a stored response may hold a secret shown once (a minted refresh token, a ticket).
    const record = { fingerprint, status: response.status, body: deps.cipher.encrypt(response.body), createdAt: now };
    if (existing) await tx.update(idempotencyRecords).set(record).where(where);
    else
      await tx
        .insert(idempotencyRecords)
        .values({ instanceId: args.instanceId, credentialId: args.credentialId, key: args.key, ...record });
    return response;
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

export async function purgeIdempotencyRecords(deps: Pick<Deps, 'db' | 'clock'>) {
  await deps.db.delete(idempotencyRecords).where(sql`${idempotencyRecords.createdAt} < ${deps.clock.now() - IDEMPOTENCY_TTL_MS}`);
}
