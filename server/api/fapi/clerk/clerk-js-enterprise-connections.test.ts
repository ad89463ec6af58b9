import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { required } from '../../../testing/requirements';
import {
  CHROMIUM,
  createActiveOrganization,
  hasChromiumBinary,
  inPage,
  signedInClerkUser,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * `user.getEnterpriseConnections()` through `@clerk/clerk-js` 6.x (its browser bundle from npm,
 * unchanged, in Chromium): the signed-in user's SSO connections in Clerk's shape — their
 * organizations' active ones, never another organization's, never the IdP's settings.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium) x = await startClerkBrowserHarness({ settings: { name_required: false } });
}, 120_000);
afterAll(async () => {
  await x?.close();
});

const PASSWORD = 'correct horse battery staple 42';
let seq = 0;
const email = (tag: string) => `clerkjs-${tag}-${++seq}-${Date.now()}@example.com`;
const bapi = (method: string, path: string, body?: unknown) => x.h.call(method, path, { key: x.inst.secret, body });

/** An SSO connection of the organization, at a verified domain of its own. */
async function connection(orgId: string, name: string, o: { active: boolean; provider: 'oidc' | 'saml' }) {
  const domainName = `sso-${++seq}-${Date.now()}.example.org`;
  const domain = await bapi('POST', `/v1/organizations/${orgId}/domains`, { name: domainName });
  await bapi('PATCH', `/v1/organizations/${orgId}/domains/${domain.body.id}`, { verified: true });
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: orgId,
    provider: o.provider,
    name,
    domains: [domainName],
    active: o.active,
    ...(o.provider === 'oidc'
      ? { oidc: { issuer: 'https://idp.example.com', client_id: 'latchkey', client_secret: 'an IdP client secret' } }
      : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, domain: domainName };
}

const connectionsOf = (page: Parameters<typeof inPage>[0], linking?: boolean) =>
  inPage(
    page,
    async (clerk, linking) => {
      const list = await clerk.user.getEnterpriseConnections(linking === null ? undefined : { withOrganizationAccountLinking: linking });
      return (list as Record<string, unknown>[]).map((c) => ({
        id: c.id,
        name: c.name,
        provider: c.provider,
        active: c.active,
        domains: c.domains,
        organizationId: c.organizationId,
        allowOrganizationAccountLinking: c.allowOrganizationAccountLinking,
        samlConnection: c.samlConnection,
        oauthConfig: c.oauthConfig,
      }));
    },
    linking ?? null,
  );

describe.skipIf(!hasChromium)('getEnterpriseConnections through clerk-js', () => {
  it('lists the active SSO connections of the user’s organizations, in Clerk’s shape; none for a user without one', async () => {
    const member = await signedInClerkUser(x, email('sso-member'), PASSWORD);
    const outsider = await signedInClerkUser(x, email('sso-outsider'), PASSWORD);
    const orgId = await createActiveOrganization(member.page, 'SSO Corp');
    const otherOrg = await createActiveOrganization(outsider.page, 'Elsewhere');
    const oidc = await connection(orgId, 'Corp IdP', { active: true, provider: 'oidc' });
    await connection(orgId, 'Corp SAML draft', { active: false, provider: 'saml' });
    const foreign = await connection(otherOrg, 'Elsewhere IdP', { active: true, provider: 'oidc' });

    const expected = {
      id: oidc.id,
      name: 'Corp IdP',
      provider: 'oidc_custom',
      active: true,
      domains: [oidc.domain],
      organizationId: orgId,
      allowOrganizationAccountLinking: false,
      samlConnection: null,
      oauthConfig: null,
    };
    expect(await connectionsOf(member.page)).toEqual([expected]);
    // Clerk's profile asks with account linking, which Latchkey does not offer: the same list, none linkable.
    expect(await connectionsOf(member.page, true)).toEqual([expected]);
    const call = x.calls.find((c) => c.url.pathname.endsWith('/v1/me/enterprise_connections'));
    expect(call).toMatchObject({ method: 'GET', status: 200 });
    // Never the IdP's settings.
    expect(call!.response).not.toContain('an IdP client secret');
    expect(call!.response).not.toContain('idp.example.com');

    expect(await connectionsOf(outsider.page)).toEqual([expect.objectContaining({ id: foreign.id, organizationId: otherOrg })]);
    const loner = await signedInClerkUser(x, email('sso-loner'), PASSWORD);
    expect(await connectionsOf(loner.page)).toEqual([]);
    for (const u of [member, outsider, loner]) await u.context.close();
  }, 90_000);
});
