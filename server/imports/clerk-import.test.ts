import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/commands';
import { openPglite, openPostgres, type Database } from '../db/client';
import { rowsOf } from '../db/rows';
import { users } from '../db/schema';
import { listen } from '../testing/api-server';
import { browserOf } from '../testing/auth-flows';
import { cliProcess, clerkOrgId, clerkUserId, generateClerkCsv } from '../testing/clerk-export';
import { totpCode } from '../testing/fapi-helpers';
import { createHarness, sharedHarness, sharedInstance, type TestHarness } from '../testing/harness';
import { asAdmin, databaseUrl } from '../testing/postgres-admin';

/**
 * `npm run cli -- import clerk`: the command in-process on the file's own database for the
 * behaviour, then once as an operator runs it, a child process against a database (an on-disk
 * PGlite store, or PostgreSQL when DATABASE_URL is set). The 10,000-user rate is measured by
 * bench/clerk-import.ts (`npm run bench:clerk-import`).
 */
const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-clerk-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = 1000;
const exported = generateClerkCsv(SIZE);
const csvFile = path.join(dir, 'users.csv');
writeFileSync(csvFile, exported.csv);

describe('import clerk', () => {
  const h = sharedHarness();
  const A = sharedInstance(h);
  const progress: string[] = [];
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCommand(h.runtime.deps, args, { progress: (l) => progress.push(l), env, cwd: dir });
  const importArgs = (file = csvFile) => ['import', 'clerk', file, '--instance', A.instanceId, '--json'];
  const usersOf = (stdout: string) => JSON.parse(stdout).users;

  it('a dry run says what it would create and writes nothing', async () => {
    const dry = await cli([...importArgs(), '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, format: 'csv' });
    expect(usersOf(dry.stdout)).toEqual({
      read: SIZE + exported.bad.length,
      created: SIZE,
      updated: 0,
      unchanged: 0,
      skipped: exported.bad.length,
    });
    expect((await h.call('GET', `/v1/users/${exported.users[0]!.id}`, { key: A.secret })).status).toBe(404);
    expect((await h.call('GET', '/v1/users?limit=1', { key: A.secret })).body.data).toEqual([]);
  });

  it('an interrupted run continues: the users written stay, the rest are created by the next run', async () => {
    // The first 300 users and the bad rows as a shorter file: a run stopped a third of the way through.
    const partial = path.join(dir, 'partial.csv');
    writeFileSync(partial, `${exported.csv.split('\n').slice(0, exported.users[299]!.line).join('\n')}\n`);
    const first = await cli(importArgs(partial));
    expect(first.exitCode, first.stderr).toBe(0);
    expect(usersOf(first.stdout)).toMatchObject({ created: 300, skipped: 0 });
  });

  it('imports every good row with its Clerk id, skips each bad row with its line and reason, and reports progress', async () => {
    progress.length = 0;
    const res = await cli(importArgs());
    expect(res.exitCode, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.users).toEqual({
      read: SIZE + exported.bad.length,
      created: SIZE - 300,
      updated: 0,
      unchanged: 300,
      skipped: exported.bad.length,
    });
    for (const b of exported.bad) {
      expect(report.skipped, `line ${b.line}`).toContainEqual(
        expect.objectContaining({ where: `line ${b.line}`, reason: expect.stringMatching(b.reason) }),
      );
    }
    expect(report.skipped).toHaveLength(exported.bad.length);
    expect(progress.at(-1)).toMatch(
      new RegExp(
        `^users: ${SIZE + exported.bad.length - 1}/${SIZE + exported.bad.length - 1} \\(${SIZE - 300} created, 0 updated, 300 unchanged, ${exported.bad.length - 1} skipped\\)`,
      ),
    );
    expect(progress.length).toBeGreaterThan(1);

    const u = exported.users[0]!;
    const user = await h.call('GET', `/v1/users/${u.id}`, { key: A.secret });
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({
      id: u.id,
      first_name: 'Ada',
      last_name: 'Last0',
      username: expect.stringMatching(/^user0_/),
      password_enabled: true,
      two_factor_enabled: true,
    });
    const emails = Object.fromEntries(
      user.body.email_addresses.map((e: { email_address: string; verification: { status: string } }) => [
        e.email_address,
        e.verification.status,
      ]),
    );
    const [local, domain] = u.email.split('@') as [string, string];
    expect(emails).toEqual({
      [u.email]: 'verified',
      [`${local.replace(/^u0/, 'alt0')}@example.org`]: 'verified',
      [`${local.replace(/^u0/, 'pending0')}@example.net`]: 'unverified',
    });
    expect(domain).toBe('example.com');
    expect(user.body.email_addresses.find((e: { id: string }) => e.id === user.body.primary_email_address_id).email_address).toBe(u.email);
    expect(user.body.phone_numbers).toEqual([
      expect.objectContaining({ phone_number: '+14151000000', verification: expect.objectContaining({ status: 'verified' }) }),
    ]);
    // Quoted cells: a comma, a line break; each of Clerk's separators split the second address off.
    expect((await h.call('GET', `/v1/users/${exported.users[1]!.id}`, { key: A.secret })).body.first_name).toBe('Grace, Jr.');
    expect((await h.call('GET', `/v1/users/${exported.users[2]!.id}`, { key: A.secret })).body.first_name).toBe('Line\nBreak');
    for (const i of [1, 2])
      expect((await h.call('GET', `/v1/users/${exported.users[i]!.id}`, { key: A.secret })).body.email_addresses).toHaveLength(2);
    // A session for the Clerk id, its token's sub, and the token verified.
    const session = await h.call('POST', '/v1/sessions', { key: A.secret, body: { user_id: u.id } });
    expect(session.status).toBe(200);
    const token = await h.call('POST', `/v1/sessions/${session.body.id}/tokens`, { key: A.secret, body: {} });
    expect(JSON.parse(Buffer.from(token.body.jwt.split('.')[1], 'base64url').toString()).sub).toBe(u.id);
    const verified = await h.call('POST', '/v1/sessions/verify', { key: A.secret, body: { token: token.body.jwt } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);

    const events = rowsOf<{ n: number }>(
      await h.runtime.deps.db.execute(
        sql`select count(*)::int as n from events where instance_id = ${A.instanceId} and type = 'user.created'`,
      ),
    );
    expect(Number(events[0]!.n)).toBe(SIZE);
  });

  it('an imported user signs in with the old password, which is then re-hashed to argon2id', async () => {
    const u = exported.users[1]!;
    const res = await browserOf(h, A).call('POST', '/v1/client/sign_ins', {
      body: { identifier: u.email, strategy: 'password', password: u.password },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.response.status).toBe('complete');
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.passwordHasher).toBe('argon2id');
    expect(
      (await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: 'not the password' } })).status,
    ).toBe(422);
  });

  it('an imported TOTP secret is the user’s second factor', async () => {
    const u = exported.users[10]!;
    const b = browserOf(h, A);
    const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: u.password } });
    expect(first.body.response.status).toBe('needs_second_factor');
    const wrong = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: '000000' },
    });
    expect(wrong.status).toBe(422);
    const done = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totpCode(h, u.totpSecret!) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response.status).toBe('complete');
  });

  it('run again, changes nothing: not even the password re-hashed at a sign-in here', async () => {
    const before = await h.runtime.deps.db.select({ digest: users.passwordDigest }).from(users).where(eq(users.id, exported.users[1]!.id));
    const res = await cli(importArgs());
    expect(usersOf(res.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: SIZE, skipped: exported.bad.length });
    expect(await h.runtime.deps.db.select({ digest: users.passwordDigest }).from(users).where(eq(users.id, exported.users[1]!.id))).toEqual(
      before,
    );
  });

  it('reads the JSON export: metadata, bans, created dates, verification, external ids; a changed user is updated', async () => {
    const id = clerkUserId();
    const clerkUser = (over: Record<string, unknown> = {}) => ({
      object: 'user',
      id,
      external_id: 'crm-42',
      first_name: 'Json',
      last_name: 'User',
      username: null,
      primary_email_address_id: 'idn_b',
      email_addresses: [
        {
          id: 'idn_a',
          object: 'email_address',
          email_address: `other.${id}@example.com`,
          verification: { status: 'unverified', strategy: 'email_code' },
        },
        {
          id: 'idn_b',
          object: 'email_address',
          email_address: `json.${id}@example.com`,
          verification: { status: 'verified', strategy: 'email_code' },
        },
      ],
      phone_numbers: [],
      public_metadata: { plan: 'pro' },
      private_metadata: { stripe: 'cus_1' },
      unsafe_metadata: { theme: 'dark' },
      banned: true,
      locked: false,
      created_at: 1_600_000_000_000,
      last_sign_in_at: 1_700_000_000_000,
      ...over,
    });
    const file = path.join(dir, 'users.json');
    writeFileSync(file, JSON.stringify([clerkUser(), { id: 'user_bad' }]));
    const res = await cli(importArgs(file));
    expect(JSON.parse(res.stdout)).toMatchObject({
      format: 'json',
      users: { created: 1, skipped: 1 },
      skipped: [{ where: 'entry 2', id: 'user_bad' }],
    });
    const user = (await h.call('GET', `/v1/users/${id}`, { key: A.secret })).body;
    expect(user).toMatchObject({
      external_id: 'crm-42',
      banned: true,
      public_metadata: { plan: 'pro' },
      private_metadata: { stripe: 'cus_1' },
      unsafe_metadata: { theme: 'dark' },
      created_at: 1_600_000_000_000,
      last_sign_in_at: 1_700_000_000_000,
      password_enabled: false,
    });
    expect(user.email_addresses.find((e: { id: string }) => e.id === user.primary_email_address_id).email_address).toBe(
      `json.${id}@example.com`,
    );
    expect(user.email_addresses.map((e: { verification: { status: string } }) => e.verification.status).sort()).toEqual([
      'unverified',
      'verified',
    ]);

    // A .txt name: the content says JSON. The user changed in Clerk since: the import follows.
    const renamed = path.join(dir, 'export.txt');
    writeFileSync(renamed, JSON.stringify({ data: [clerkUser({ first_name: 'Renamed', banned: false, public_metadata: {} })] }));
    const again = await cli(importArgs(renamed));
    expect(usersOf(again.stdout)).toMatchObject({ created: 0, updated: 1 });
    expect((await h.call('GET', `/v1/users/${id}`, { key: A.secret })).body).toMatchObject({
      first_name: 'Renamed',
      banned: false,
      public_metadata: {},
    });
  });

  describe('organizations from Clerk’s Backend API', () => {
    const orgs = [
      {
        object: 'organization',
        id: clerkOrgId(),
        name: 'Acme',
        slug: 'acme',
        public_metadata: { plan: 'pro' },
        private_metadata: {},
        max_allowed_memberships: 0,
        created_at: 1_600_000_000_000,
      },
      {
        object: 'organization',
        id: clerkOrgId(),
        name: 'Globex',
        slug: 'globex',
        public_metadata: {},
        private_metadata: { tier: 2 },
        max_allowed_memberships: 500,
        created_at: 1_600_000_001_000,
      },
      { object: 'organization', id: 'org_bad', name: 'Bad', slug: 'bad', created_at: 1 },
    ];
    const member = (userId: string, role: string, roleName: string, permissions: string[] = []) => ({
      object: 'organization_membership',
      id: `orgmem_2${randomBytes(8).toString('hex')}`,
      role,
      role_name: roleName,
      permissions,
      public_metadata: {},
      private_metadata: {},
      created_at: 1_600_000_002_000,
      public_user_data: { user_id: userId, first_name: null, last_name: null, identifier: 'x', has_image: false, image_url: '' },
    });
    const notImported = clerkUserId();
    const memberships: Record<string, ReturnType<typeof member>[]> = {
      [orgs[0]!.id]: [
        member(exported.users[0]!.id, 'org:admin', 'Admin', ['org:sys_memberships:manage']),
        member(exported.users[1]!.id, 'org:editor', 'Editor', ['org:sys_memberships:read', 'org:posts:edit']),
        member(notImported, 'org:member', 'Member'),
      ],
      // More than a page (100) of members.
      [orgs[1]!.id]: Array.from({ length: 150 }, (_, i) => member(exported.users[i + 2]!.id, 'org:member', 'Member')),
    };
    const SECRET = `sk_test_${randomBytes(16).toString('hex')}`;
    let clerk: Awaited<ReturnType<typeof listen>>;
    beforeAll(async () => {
      clerk = await listen((req, res) => {
        const url = new URL(req.url!, 'http://x');
        if (req.headers.authorization !== `Bearer ${SECRET}`)
          return res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"authentication_invalid"}]}');
        const page = <T>(list: T[]) => {
          const limit = Number(url.searchParams.get('limit') ?? 10);
          const offset = Number(url.searchParams.get('offset') ?? 0);
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ data: list.slice(offset, offset + limit), total_count: list.length }));
        };
        if (url.pathname === '/v1/organizations') return page(orgs);
        const m = /^\/v1\/organizations\/([^/]+)\/memberships$/.exec(url.pathname);
        if (m) return page(memberships[m[1]!] ?? []);
        res.writeHead(404).end();
      });
    });
    afterAll(() => clerk?.close());
    const args = () => ['import', 'clerk', '--from-api', '--clerk-api-url', clerk.url, '--instance', A.instanceId, '--json'];

    it('refuses a missing or wrong secret key, never echoing it', async () => {
      expect((await cli(args())).exitCode).toBe(2);
      const wrong = await cli(args(), { CLERK_SECRET_KEY: 'sk_test_wrong_key' });
      expect(wrong.exitCode).toBe(1);
      expect(wrong.stderr).toMatch(/refused the secret key \(401/);
      expect(wrong.stderr + wrong.stdout).not.toContain('sk_test_wrong_key');
    });

    it('a dry run writes nothing', async () => {
      const dry = await cli([...args(), '--dry-run'], { CLERK_SECRET_KEY: SECRET });
      expect(JSON.parse(dry.stdout)).toMatchObject({
        organizations: { created: 2 },
        memberships: { created: 152 },
        roles_created: ['org:editor'],
      });
      expect((await h.call('GET', `/v1/organizations/${orgs[0]!.id}`, { key: A.secret })).status).toBe(404);
    });

    it('imports organizations with their ids, slugs and metadata, memberships with their roles, creating custom roles', async () => {
      const res = await cli(args(), { CLERK_SECRET_KEY: SECRET });
      expect(res.exitCode, res.stderr).toBe(0);
      expect(res.stdout + res.stderr).not.toContain(SECRET);
      const report = JSON.parse(res.stdout);
      expect(report).toMatchObject({
        organizations: { created: 2, updated: 0, unchanged: 0 },
        memberships: { created: 152, updated: 0, unchanged: 0 },
        roles_created: ['org:editor'],
      });
      expect(report.skipped).toHaveLength(2);
      expect(report.skipped).toContainEqual(
        expect.objectContaining({ where: 'organization org_bad', reason: expect.stringMatching(/not a Clerk organization id/) }),
      );
      expect(report.skipped).toContainEqual(
        expect.objectContaining({ id: notImported, reason: expect.stringMatching(/not in this instance/) }),
      );

      const acme = await h.call('GET', `/v1/organizations/${orgs[0]!.id}`, { key: A.secret });
      expect(acme.status).toBe(200);
      expect(acme.body).toMatchObject({
        id: orgs[0]!.id,
        slug: 'acme',
        public_metadata: { plan: 'pro' },
        created_at: 1_600_000_000_000,
        members_count: 2,
      });
      const list = await h.call('GET', `/v1/organizations/${orgs[0]!.id}/memberships`, { key: A.secret });
      const roles = Object.fromEntries(
        list.body.data.map((m: { public_user_data: { user_id: string }; role: string }) => [m.public_user_data.user_id, m.role]),
      );
      expect(roles).toEqual({ [exported.users[0]!.id]: 'org:admin', [exported.users[1]!.id]: 'org:editor' });
      const editor = (await h.call('GET', '/v1/roles', { key: A.secret })).body.data.find((r: { key: string }) => r.key === 'org:editor');
      expect(editor).toMatchObject({ name: 'Editor', permissions: ['org:posts:edit', 'org:sys_memberships:read'] });
      expect((await h.call('GET', `/v1/organizations/${orgs[1]!.id}`, { key: A.secret })).body).toMatchObject({
        private_metadata: { tier: 2 },
        max_allowed_memberships: 500,
        members_count: 150,
      });
      expect((await h.call('GET', `/v1/users/${exported.users[0]!.id}/organization_memberships`, { key: A.secret })).body.data).toEqual([
        expect.objectContaining({ role: 'org:admin', organization: expect.objectContaining({ id: orgs[0]!.id }) }),
      ]);
    });

    it('run again, changes nothing; a changed role is updated', async () => {
      const again = await cli(args(), { CLERK_SECRET_KEY: SECRET });
      expect(JSON.parse(again.stdout)).toMatchObject({
        organizations: { created: 0, updated: 0, unchanged: 2 },
        memberships: { created: 0, updated: 0, unchanged: 152 },
        roles_created: [],
      });
      memberships[orgs[0]!.id]![1]!.role = 'org:admin';
      const changed = await cli(args(), { CLERK_SECRET_KEY: SECRET });
      expect(JSON.parse(changed.stdout)).toMatchObject({ memberships: { created: 0, updated: 1, unchanged: 151 } });
    });
  });
});

describe('import clerk, as an operator runs it: a child process against a database', () => {
  const encryptionKey = randomBytes(32).toString('hex');
  const adminUrl = process.env.DATABASE_URL;
  const dbName = `latchkey_clerk_import_${randomBytes(6).toString('hex')}`;
  const dataDir = path.join(dir, 'data');
  const target: Record<string, string> = adminUrl
    ? { DATABASE_URL: databaseUrl(adminUrl, dbName) }
    : { DATA_DIR: dataDir, DATABASE_URL: '' };
  const child = cliProcess({ ...target, ENCRYPTION_KEY: encryptionKey });
  const small = generateClerkCsv(20);
  let database: Database | undefined;
  let h: TestHarness | undefined;
  beforeAll(async () => {
    if (adminUrl) await asAdmin(adminUrl, (admin) => admin.unsafe(`create database ${dbName}`));
  });
  afterAll(async () => {
    child.killAll();
    await h?.close();
    await database?.close();
    if (adminUrl) await asAdmin(adminUrl, (admin) => admin.unsafe(`drop database if exists ${dbName} with (force)`));
  });

  it('imports, reports progress on stderr and a summary on stdout; the users then sign in over the API', async () => {
    const created = await child.run(['instance', 'create', '--name', 'From Clerk', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { instance_id: instanceId, publishable_key: publishableKey } = JSON.parse(created.stdout);
    const file = path.join(dir, 'small.csv');
    writeFileSync(file, small.csv);
    const run = await child.run(['import', 'clerk', file, '--instance', instanceId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^users: 25\/25 \(20 created, 0 updated, 0 unchanged, 5 skipped\)/m);
    expect(run.stdout).toContain(`Clerk import into ${instanceId}`);
    expect(run.stdout).toContain('users:         26 read, 20 created, 0 updated, 0 unchanged, 6 skipped');
    expect(run.stdout).toMatch(new RegExp(`line ${small.bad[1]!.line} user_\\w+: password_hasher scrypt_firebase is not supported`));

    database = adminUrl ? openPostgres(target.DATABASE_URL!, { max: 5 }) : await openPglite(path.join(dataDir, 'pgdata'));
    h = await createHarness({ database, env: { ENCRYPTION_KEY: encryptionKey } });
    const i = { instanceId, publishableKey, secret: '', keyId: '' };
    const u = small.users[0]!;
    const b = browserOf(h, i);
    const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: u.password } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.response.status).toBe('needs_second_factor');
    const done = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totpCode(h, u.totpSecret!) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({ status: 'complete', created_session_id: expect.stringMatching(/^sess_/) });
  }, 120_000);
});
