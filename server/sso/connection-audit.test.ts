import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { sharedHarness, sharedInstance } from '../testing/harness';

/** A connection's changes are audited with the fields sent (never a value of a secret) and the MFA trust it gives the IdP. */
const h = sharedHarness();
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

it('records idp_enforces_mfa on create and update, and names a client secret only by its field', async () => {
  const org = (await bapi('POST', '/v1/organizations', { name: 'Audited' })).body;
  const domain = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: 'audited.test' })).body;
  await bapi('PATCH', `/v1/organizations/${org.id}/domains/${domain.id}`, { verified: true });
  const cert = readFileSync(join(__dirname, 'fixtures', 'idp-cert.pem'), 'utf8');
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: org.id,
    provider: 'saml',
    name: 'Audited IdP',
    domains: ['audited.test'],
    saml: { idp_entity_id: 'https://idp.audited.test', idp_sso_url: 'https://idp.audited.test/sso', idp_certificates: [cert] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.idp_enforces_mfa).toBe(false);
  const updated = await bapi('PATCH', `/v1/sso_connections/${created.body.id}`, { idp_enforces_mfa: true });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  expect(updated.body.idp_enforces_mfa).toBe(true);
  const [entry] = await h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, 'sso_connection.updated'), eq(auditLogs.target, created.body.id)))
    .orderBy(desc(auditLogs.id));
  expect(entry?.details).toEqual({ fields: ['idp_enforces_mfa'], idp_enforces_mfa: true });
  const [made] = await h.runtime.deps.db.select().from(auditLogs).where(eq(auditLogs.action, 'sso_connection.created'));
  expect(made?.details).toEqual({ fields: ['domains', 'name', 'organization_id', 'provider', 'saml'] });
});
