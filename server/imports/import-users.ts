import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { emailAddresses, phoneNumbers, totpFactors, users } from '../db/schema';
import { isId, newId } from '../db/ids';
import { uniqueViolation } from '../db/errors';
import { insertRows } from '../db/insert-rows';
import { digestProblem, importLimitText, type PasswordHasher } from '../crypto/passwords';
import { emitEvents } from '../events/events';
import { count as countMetric } from '../analytics/metrics';
import { createUserBody } from '../users/schemas';
import { userView } from '../users/users';
import type { ExportedUser } from './clerk-export';

/**
 * Writes exported users into an instance, keeping their ids: a user already there (same id)
 * is brought up to date, one that is not is created. Batches of users are checked together
 * and written in one transaction each (multi-row inserts); when a batch's transaction fails,
 * its users are written again one transaction each, so one bad user is skipped and no user is
 * ever half-written.
 */

type D = Pick<Deps, 'db' | 'clock' | 'cipher'>;

/** Clerk's `password_hasher` values Latchkey verifies, and as which of its hashers. */
const CLERK_HASHERS: Record<string, PasswordHasher> = {
  bcrypt: 'bcrypt',
  argon2id: 'argon2id',
  argon2i: 'argon2i',
  pbkdf2_sha256_django: 'pbkdf2_sha256',
  scrypt_werkzeug: 'scrypt',
};

export type ImportOutcome = 'created' | 'updated' | 'unchanged';

export interface Skipped {
  where: string;
  id: string;
  reason: string;
}

export interface UserImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Skipped[];
}

export interface UserImportOptions {
  dryRun: boolean;
  /** Emit user.created / user.updated for each user written. */
  events: boolean;
  batchSize?: number;
  onProgress?: (done: number, total: number, summary: UserImportSummary) => void;
}

/** A user that passed every check that needs no database: what its rows will hold. */
interface Checked {
  source: ExportedUser;
  emails: { address: string; key: string; verified: boolean }[];
  phones: { number: string; verified: boolean }[];
  password: { digest: string; hasher: PasswordHasher } | null;
  totpSecret: string | null;
}

class Skip extends Error {}

const TOTP_SECRET_RE = /^[A-Z2-7]{16,128}$/;

/** What a user of the export may be, as `POST /v1/users` checks it, plus what only an import carries. */
function check(u: ExportedUser): Checked {
  if (!isId('user', u.id)) throw new Skip(u.id ? `${u.id} is not a Clerk user id (user_ and 27 letters or digits)` : 'no id');
  const parsed = createUserBody.safeParse({
    email_address: u.emails.map((e) => e.address),
    phone_number: u.phones.map((p) => p.number),
    username: u.username ?? undefined,
    first_name: u.firstName ?? undefined,
    last_name: u.lastName ?? undefined,
    external_id: u.externalId ?? undefined,
    public_metadata: u.publicMetadata,
    private_metadata: u.privateMetadata,
    unsafe_metadata: u.unsafeMetadata,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Skip(`${issue.path.join('.') || 'user'}: ${issue.message}`);
  }
  if (u.emails.length === 0 && u.phones.length === 0 && !u.username) throw new Skip('no email address, phone number or username');
  let password: Checked['password'] = null;
  if (u.password) {
    const hasher = CLERK_HASHERS[u.password.hasher];
    if (!hasher) {
      throw new Skip(
        `password_hasher ${u.password.hasher || '(empty)'} is not supported (supported: ${Object.keys(CLERK_HASHERS).join(', ')})`,
      );
    }
    const problem = digestProblem(hasher, u.password.digest);
    if (problem === 'invalid') throw new Skip(`password_digest is not a valid ${u.password.hasher} digest`);
    if (problem === 'cost_too_high') throw new Skip(`password_digest costs more to verify than imports may (${importLimitText(hasher)})`);
    password = { digest: u.password.digest, hasher };
  }
  const totpSecret = u.totpSecret ? u.totpSecret.toUpperCase().replace(/[\s=-]/g, '') : null;
  if (totpSecret !== null && !TOTP_SECRET_RE.test(totpSecret))
    throw new Skip('totp_secret is not a base32 secret of at least 16 characters');
  return {
    source: u,
    emails: u.emails.map((e) => ({ address: e.address.trim(), key: e.address.trim().toLowerCase(), verified: e.verified })),
    phones: u.phones,
    password,
    totpSecret,
  };
}

/** Who already holds an identifier in the file: a second user naming it is skipped. */
class Claims {
  private owner = new Map<string, string>();
  /** The `where` of the earlier user holding one of these keys, or null after claiming them all. */
  claim(where: string, keys: string[]): string | null {
    for (const k of keys) {
      const held = this.owner.get(k);
      if (held !== undefined && held !== where) return held;
    }
    for (const k of keys) this.owner.set(k, where);
    return null;
  }
}

const keysOf = (c: Checked) => [
  `id:${c.source.id}`,
  ...c.emails.map((e) => `email:${e.key}`),
  ...c.phones.map((p) => `phone:${p.number}`),
  ...(c.source.username ? [`username:${c.source.username.toLowerCase()}`] : []),
];

type Stored = NonNullable<Awaited<ReturnType<typeof storedUsers>>[number]>;

function storedUsers(db: Db, instanceId: string, ids: string[]) {
  return db.query.users.findMany({
    where: (u, { and, eq, inArray }) => and(eq(u.instanceId, instanceId), inArray(u.id, ids)),
    with: { emailAddresses: true, phoneNumbers: true },
  });
}

/** Identifiers and ids of the batch that belong to someone else: by key, whose. */
async function heldElsewhere(db: Db, instanceId: string, batch: Checked[]) {
  const held = new Map<string, string>();
  for (const r of await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        inArray(
          users.id,
          batch.map((c) => c.source.id),
        ),
        ne(users.instanceId, instanceId),
      ),
    )) {
    held.set(`id:${r.id}`, 'another instance');
  }
  /** Who holds each of `keys` in a unique column of the instance. */
  const holders = async (kind: string, keys: string[], key: AnyPgColumn, owner: AnyPgColumn, instance: AnyPgColumn) => {
    if (keys.length === 0) return;
    const rows = await db
      .select({ key, owner })
      .from(key.table)
      .where(and(eq(instance, instanceId), inArray(key, keys)));
    for (const r of rows as { key: string; owner: string }[]) held.set(`${kind}:${r.key}`, r.owner);
  };
  await holders(
    'email',
    batch.flatMap((c) => c.emails.map((e) => e.key)),
    emailAddresses.emailKey,
    emailAddresses.userId,
    emailAddresses.instanceId,
  );
  await holders(
    'phone',
    batch.flatMap((c) => c.phones.map((p) => p.number)),
    phoneNumbers.phoneNumber,
    phoneNumbers.userId,
    phoneNumbers.instanceId,
  );
  await holders(
    'username',
    batch.flatMap((c) => (c.source.username ? [c.source.username.toLowerCase()] : [])),
    users.usernameKey,
    users.id,
    users.instanceId,
  );
  return held;
}

/** What writing one user takes: rows to insert, a patch of its user row, the event it emits. */
interface Plan {
  checked: Checked;
  outcome: ImportOutcome;
  user?: typeof users.$inferInsert;
  patch?: Partial<typeof users.$inferInsert>;
  newEmails: (typeof emailAddresses.$inferInsert)[];
  verifyEmails: string[];
  newPhones: (typeof phoneNumbers.$inferInsert)[];
  verifyPhones: string[];
  totp?: typeof totpFactors.$inferInsert;
  /** The user as it will read (for its event). */
  view?: Record<string, unknown>;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The rows that make the stored user (or none) match the export. Profile fields and metadata
 * follow the export; addresses and phones are added (an unverified one becomes verified when
 * the export says so), never removed. A password or TOTP factor is kept once it is Latchkey's
 * own: a digest re-hashed at a sign-in here, a factor confirmed here.
 */
function plan(
  deps: D,
  instanceId: string,
  c: Checked,
  stored: Stored | undefined,
  storedTotp: { secret: string; status: string } | undefined,
): Plan {
  const now = deps.clock.now();
  const u = c.source;
  const identifierRow = (verified: boolean) => ({
    instanceId,
    userId: u.id,
    verificationStatus: verified ? ('verified' as const) : ('unverified' as const),
    verificationStrategy: verified ? 'admin' : null,
    createdAt: now,
    updatedAt: now,
  });
  const knownEmails = new Map(stored?.emailAddresses.map((e) => [e.emailKey, e]) ?? []);
  const knownPhones = new Map(stored?.phoneNumbers.map((p) => [p.phoneNumber, p]) ?? []);
  const newEmails = c.emails
    .filter((e) => !knownEmails.has(e.key))
    .map((e) => ({ id: newId('idn'), emailAddress: e.address, emailKey: e.key, ...identifierRow(e.verified) }));
  const newPhones = c.phones
    .filter((p) => !knownPhones.has(p.number))
    .map((p) => ({ id: newId('idn'), phoneNumber: p.number, ...identifierRow(p.verified) }));
  const verifyEmails = c.emails
    .filter((e) => e.verified && knownEmails.get(e.key)?.verificationStatus === 'unverified')
    .map((e) => knownEmails.get(e.key)!.id);
  const verifyPhones = c.phones
    .filter((p) => p.verified && knownPhones.get(p.number)?.verificationStatus === 'unverified')
    .map((p) => knownPhones.get(p.number)!.id);

  const firstVerified = <T extends { id: string; verificationStatus: string }>(rows: T[]) =>
    rows.find((r) => r.verificationStatus === 'verified')?.id ?? null;
  const totp =
    c.totpSecret && storedTotp?.status !== 'verified'
      ? {
          userId: u.id,
          instanceId,
          secretEncrypted: deps.cipher.encrypt(c.totpSecret),
          status: 'verified' as const,
          createdAt: now,
          updatedAt: now,
          verifiedAt: now,
        }
      : undefined;

  if (!stored) {
    const user = {
      id: u.id,
      instanceId,
      externalId: u.externalId ?? null,
      firstName: u.firstName,
      lastName: u.lastName,
      username: u.username,
      usernameKey: u.username?.toLowerCase() ?? null,
      primaryEmailAddressId: firstVerified(newEmails),
      primaryPhoneNumberId: firstVerified(newPhones),
      passwordDigest: c.password?.digest ?? null,
      passwordHasher: c.password?.hasher ?? null,
      publicMetadata: u.publicMetadata ?? {},
      privateMetadata: u.privateMetadata ?? {},
      unsafeMetadata: u.unsafeMetadata ?? {},
      banned: u.banned ?? false,
      locked: u.lockedForSeconds !== undefined,
      lockedUntil: u.lockedForSeconds ? now + u.lockedForSeconds * 1000 : null,
      lastSignInAt: u.lastSignInAt,
      createdAt: u.createdAt ?? now,
      updatedAt: now,
    };
    return { checked: c, outcome: 'created', user, newEmails, verifyEmails, newPhones, verifyPhones, totp };
  }

  const patch: Partial<typeof users.$inferInsert> = {};
  const follow = <K extends keyof typeof users.$inferInsert>(key: K, value: (typeof users.$inferInsert)[K] | undefined) => {
    if (value !== undefined && !sameJson(stored[key as keyof Stored], value)) patch[key] = value;
  };
  follow('firstName', u.firstName);
  follow('lastName', u.lastName);
  follow('username', u.username);
  if (patch.username !== undefined) patch.usernameKey = u.username?.toLowerCase() ?? null;
  follow('externalId', u.externalId);
  follow('publicMetadata', u.publicMetadata);
  follow('privateMetadata', u.privateMetadata);
  follow('unsafeMetadata', u.unsafeMetadata);
  follow('banned', u.banned);
  // A digest of the export's kind is still the imported one: a sign-in here would have made it argon2id.
  const rehashedHere = stored.passwordHasher === 'argon2id' && c.password?.hasher !== 'argon2id';
  if (c.password && !rehashedHere && (stored.passwordDigest !== c.password.digest || stored.passwordHasher !== c.password.hasher)) {
    patch.passwordDigest = c.password.digest;
    patch.passwordHasher = c.password.hasher;
  }
  if (!stored.primaryEmailAddressId) {
    const verified = [
      ...stored.emailAddresses.filter((e) => verifyEmails.includes(e.id)),
      ...newEmails.filter((e) => e.verificationStatus === 'verified'),
    ];
    if (verified[0]) patch.primaryEmailAddressId = verified[0].id;
  }
  if (!stored.primaryPhoneNumberId) {
    const verified = [
      ...stored.phoneNumbers.filter((p) => verifyPhones.includes(p.id)),
      ...newPhones.filter((p) => p.verificationStatus === 'verified'),
    ];
    if (verified[0]) patch.primaryPhoneNumberId = verified[0].id;
  }
  const changed =
    Object.keys(patch).length > 0 ||
    newEmails.length > 0 ||
    newPhones.length > 0 ||
    verifyEmails.length > 0 ||
    verifyPhones.length > 0 ||
    totp !== undefined;
  if (changed) patch.updatedAt = now;
  return { checked: c, outcome: changed ? 'updated' : 'unchanged', patch, newEmails, verifyEmails, newPhones, verifyPhones, totp };
}

/** The user as its event carries it, from the rows the plan writes (no read back). */
function viewOf(p: Plan, stored: Stored | undefined, hasTotp: boolean, now: number) {
  const verified =
    (ids: string[]) => (row: { id: string; verificationStatus: 'verified' | 'unverified'; verificationStrategy: string | null }) =>
      ids.includes(row.id) ? { ...row, verificationStatus: 'verified' as const, verificationStrategy: 'admin' } : row;
  const base = stored ?? (p.user as Stored);
  const row = {
    ...base,
    ...p.patch,
    emailAddresses: [...(stored?.emailAddresses ?? []).map(verified(p.verifyEmails)), ...p.newEmails],
    phoneNumbers: [...(stored?.phoneNumbers ?? []).map(verified(p.verifyPhones)), ...p.newPhones],
    twoFactorEnabled: hasTotp,
  };
  return userView(row as Parameters<typeof userView>[0], now);
}

async function write(deps: D, instanceId: string, plans: Plan[], opts: UserImportOptions) {
  const now = deps.clock.now();
  const toWrite = plans.filter((p) => p.outcome !== 'unchanged');
  if (toWrite.length === 0) return;
  await deps.db.transaction(async (tx) => {
    const created = toWrite.filter((p) => p.user);
    await insertRows(
      tx,
      users,
      created.map((p) => p.user!),
    );
    await insertRows(
      tx,
      emailAddresses,
      toWrite.flatMap((p) => p.newEmails),
    );
    await insertRows(
      tx,
      phoneNumbers,
      toWrite.flatMap((p) => p.newPhones),
    );
    const verifyEmails = toWrite.flatMap((p) => p.verifyEmails);
    const verifyPhones = toWrite.flatMap((p) => p.verifyPhones);
    if (verifyEmails.length) {
      await tx
        .update(emailAddresses)
        .set({ verificationStatus: 'verified', verificationStrategy: 'admin', updatedAt: now })
        .where(inArray(emailAddresses.id, verifyEmails));
    }
    if (verifyPhones.length) {
      await tx
        .update(phoneNumbers)
        .set({ verificationStatus: 'verified', verificationStrategy: 'admin', updatedAt: now })
        .where(inArray(phoneNumbers.id, verifyPhones));
    }
    // Primary ids point at identifiers inserted just above.
    for (const p of toWrite)
      if (p.patch && Object.keys(p.patch).length) await tx.update(users).set(p.patch).where(eq(users.id, p.checked.source.id));
    const factors = toWrite.flatMap((p) => (p.totp ? [p.totp] : []));
    if (factors.length) {
      await tx
        .insert(totpFactors)
        .values(factors)
        .onConflictDoUpdate({
          target: totpFactors.userId,
          set: {
            secretEncrypted: sqlExcluded('secret_encrypted'),
            status: 'verified',
            lastUsedStep: null,
            updatedAt: now,
            verifiedAt: now,
          },
        });
    }
    if (created.length) await countMetric({ db: tx, clock: deps.clock }, instanceId, 'users_created', created.length);
    if (opts.events) {
      const d = { db: tx, clock: deps.clock };
      await emitEvents(
        d,
        instanceId,
        'user.created',
        created.map((p) => p.view!),
      );
      await emitEvents(
        d,
        instanceId,
        'user.updated',
        toWrite.filter((p) => !p.user).map((p) => p.view!),
      );
    }
  });
}

const sqlExcluded = (column: string) => sql.raw(`excluded.${column}`);

/** Whether the database refused the user's rows themselves (SQLSTATE classes 22 and 23), not the database being away. */
function refusedRows(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && /^2[23]/.test(e.code)) return true;
  }
  return false;
}

/** Why a write failed, for the summary: a race on an identifier, else the error's message. */
function failure(err: unknown): string {
  const constraint = uniqueViolation(err);
  if (constraint === 'email_addresses_uq') return 'an email address is already taken';
  if (constraint === 'phone_numbers_uq') return 'a phone number is already taken';
  if (constraint === 'users_username_uq') return 'the username is already taken';
  if (constraint === 'users_pkey') return 'the id is already taken';
  return err instanceof Error ? err.message : String(err);
}

/** Imports the users in batches; answers what happened to each. */
export async function importUsers(
  deps: D,
  instanceId: string,
  exported: ExportedUser[],
  opts: UserImportOptions,
): Promise<UserImportSummary> {
  const summary: UserImportSummary = { created: 0, updated: 0, unchanged: 0, skipped: [] };
  const skip = (u: ExportedUser, reason: string) => summary.skipped.push({ where: u.where, id: u.id, reason });
  const claims = new Claims();
  const size = opts.batchSize ?? 500;
  for (let start = 0; start < exported.length; start += size) {
    const batch: Checked[] = [];
    for (const u of exported.slice(start, start + size)) {
      try {
        const c = check(u);
        const earlier = claims.claim(u.where, keysOf(c));
        if (earlier) throw new Skip(`the same id, email address, phone number or username as at ${earlier}`);
        batch.push(c);
      } catch (e) {
        if (!(e instanceof Skip)) throw e;
        skip(u, e.message);
      }
    }
    const ids = batch.map((c) => c.source.id);
    const [stored, held, factors] = ids.length
      ? await Promise.all([
          storedUsers(deps.db, instanceId, ids),
          heldElsewhere(deps.db, instanceId, batch),
          deps.db
            .select()
            .from(totpFactors)
            .where(and(eq(totpFactors.instanceId, instanceId), inArray(totpFactors.userId, ids))),
        ])
      : [[], new Map<string, string>(), []];
    const storedById = new Map(stored.map((s) => [s.id, s]));
    const totpById = new Map(factors.map((f) => [f.userId, { secret: deps.cipher.decrypt(f.secretEncrypted), status: f.status }]));
    const plans: Plan[] = [];
    for (const c of batch) {
      const clash = keysOf(c).find((k) => held.has(k) && held.get(k) !== c.source.id);
      if (clash) {
        const [kind, value] = [clash.slice(0, clash.indexOf(':')), clash.slice(clash.indexOf(':') + 1)];
        skip(c.source, kind === 'id' ? 'the id belongs to a user of another instance' : `${kind} ${value} belongs to ${held.get(clash)}`);
        continue;
      }
      const p = plan(deps, instanceId, c, storedById.get(c.source.id), totpById.get(c.source.id));
      if (opts.events && !opts.dryRun && p.outcome !== 'unchanged') {
        const hasTotp = totpById.get(c.source.id)?.status === 'verified' || p.totp !== undefined;
        p.view = viewOf(p, storedById.get(c.source.id), hasTotp, deps.clock.now()) as unknown as Record<string, unknown>;
      }
      plans.push(p);
    }
    const tally = (written: Plan[]) => written.forEach((p) => summary[p.outcome]++);
    if (opts.dryRun) tally(plans);
    else {
      try {
        await write(deps, instanceId, plans, opts);
        tally(plans);
      } catch {
        // One user spoiled the batch (a race on an identifier, a row the database refuses): each alone.
        for (const p of plans) {
          try {
            await write(deps, instanceId, [p], opts);
            tally([p]);
          } catch (err) {
            if (!refusedRows(err)) throw err;
            skip(p.checked.source, failure(err));
          }
        }
      }
    }
    opts.onProgress?.(Math.min(start + size, exported.length), exported.length, summary);
  }
  return summary;
}
