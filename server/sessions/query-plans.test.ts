import { PgDialect } from 'drizzle-orm/pg-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { byDigest } from '../apikeys/verify';
import { sha256Hex } from '../crypto/secrets';
import { instanceContext } from '../instances/instances';
import { keyLookupStatement } from '../keys/secret-keys';
import { explainQuery } from '../testing/explain';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness, type TestInstance } from '../testing/harness';
import { stateQuery } from './session-state';
import { rotationStatement } from './sessions';

/**
 * The statements of the session hot paths (refresh, authoritative verify on a cache miss,
 * secret-key and end-user API key authentication) find their rows by index: planned with
 * sequential scans switched off, none of them scans a table.
 */
const h = sharedHarness();
let i: TestInstance;
let session: Awaited<ReturnType<typeof mintNewUserSession>>;
beforeAll(async () => {
  i = await h.createInstance();
  session = await mintNewUserSession(h, i.secret);
}, 60_000);

const db = () => h.runtime.deps.db;

describe('hot path statements use their indexes (EXPLAIN)', () => {
  it('refresh: the rotation finds the token, its session and user by primary key and rotates without a scan', async () => {
    const instance = await instanceContext(h.runtime.deps, i.instanceId);
    const statement = rotationStatement(instance, session.id, sha256Hex(session.refresh_token), sha256Hex('rt_successor'), Date.now());
    const plan = await explainQuery(db(), new PgDialect().sqlToQuery(statement));
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toContain('refresh_tokens_pkey');
    expect(plan).toMatch(/sessions_(pkey|instance_idx)/);
    expect(plan).toContain('users_pkey');
  });

  it('verify on a cache miss: the session and its user by primary key', async () => {
    const plan = await explainQuery(db(), stateQuery(db()).getQuery(), { sessionId: session.id, instanceId: i.instanceId });
    expect(plan).not.toMatch(/Seq Scan/);
    // By id, through the primary key or the (instance_id, id) index: the planner's choice.
    expect(plan).toMatch(/Index Scan using sessions_(pkey|instance_idx) on sessions/);
    expect(plan).toContain('users_pkey');
  });

  it('secret keys and end-user API keys: by the digest’s unique index', async () => {
    const secret = await explainQuery(db(), keyLookupStatement(db()).getQuery(), { digest: sha256Hex(i.secret) });
    expect(secret).not.toMatch(/Seq Scan/);
    expect(secret).toContain('secret_keys_digest_uq');
    const apiKey = await explainQuery(db(), byDigest(db()).getQuery(), { digest: sha256Hex('ak_unknown') });
    expect(apiKey).not.toMatch(/Seq Scan/);
    expect(apiKey).toContain('api_keys_digest_uq');
  });
});
