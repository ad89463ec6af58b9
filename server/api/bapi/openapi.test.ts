import { beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_NAMES } from '../../limits/budgets';
import { sharedHarness } from '../../testing/harness';
import { examples, isValid, type JsonSchema } from '../../testing/schema-examples';

/**
 * The OpenAPI document must be at least as strict as the server: a request the document
 * says is valid may be refused only for what a schema cannot know (an absent resource,
 * a taken name), never for its shape. Requests come from the document itself, the way
 * an outside generator (schemathesis and the like) would build them.
 */

interface Operation {
  parameters: { name: string; in: 'path' | 'query'; required: boolean; schema: JsonSchema }[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/**
 * 422 reasons that depend on the instance's data, not on the request's shape: the
 * resource named does not exist or the name is taken. A schema cannot state them.
 */
const STATE_REASONS = new Set([
  'not_found',
  'taken',
  'unknown_role',
  'unknown_permission',
  'wrong_domain',
  'txt_record_not_found',
  'admin_needs_system_permissions',
]);

const PUBLIC_IP = '93.184.215.14';
const h = sharedHarness({
  dns: async (host) => (host.endsWith('example.com') || host.endsWith('example.org') ? [{ address: PUBLIC_IP, family: 4 }] : []),
});
let key: string;
let doc: Document;
/** Seeded ids by the path segment before the parameter. */
const seeds: Record<string, string> = {};

beforeAll(async () => {
  const instance = await h.createInstance();
  key = instance.secret;
  const post = async (path: string, body: unknown) => {
    const res = await h.call('POST', path, { key, body });
    if (res.status >= 300) throw new Error(`seeding ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const user = await post('/v1/users', { email_address: ['seed@example.com'], username: 'seed_user', password: 'correct horse battery' });
  const member = await post('/v1/users', { email_address: ['member@example.com'] });
  const org = await post('/v1/organizations', { name: 'Seed', slug: 'seed-org', created_by: user.id });
  await post(`/v1/organizations/${org.id}/memberships`, { user_id: member.id });
  const invitation = await post(`/v1/organizations/${org.id}/invitations`, { email_address: 'invitee@example.com' });
  const domain = await post(`/v1/organizations/${org.id}/domains`, { name: 'seed.example.com' });
  const permission = await post('/v1/permissions', { key: 'org:seed:read', name: 'Seed read' });
  const role = await post('/v1/roles', { key: 'org:seed', name: 'Seed', permissions: ['org:seed:read'] });
  const endpoint = await post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/seed' });
  // A deny rule for a documentation block: the harness's requests carry no address, so it never matches.
  const acl = await post('/v1/network_acls', { action: 'deny', cidr: '192.0.2.0/24' });
  const oauthApp = await post('/v1/oauth_applications', { name: 'Seed', redirect_uris: ['https://rp.example.com/cb'] });
  const session = await post('/v1/sessions', { user_id: user.id });
  const actorToken = await post('/v1/actor_tokens', { user_id: user.id, actor: { sub: 'support' } });
  const signInToken = await post('/v1/sign_in_tokens', { user_id: user.id });
  const apiKey = await post('/v1/api_keys', { subject: user.id, name: 'Seed' });
  const plan = await post('/v1/billing/plans', { key: 'seed', name: 'Seed', payer: 'user' });
  const ltiPlatform = await post('/v1/lti_platforms', {
    name: 'Seed',
    issuer: 'https://lms.example.com',
    client_id: 'seed',
    authorization_endpoint: 'https://lms.example.com/authorize',
    jwks_uri: 'https://lms.example.com/jwks',
    deployment_ids: ['d-1'],
    target_link_uris: ['https://app.example.com/lti'],
  });
  const jwtTemplate = await post('/v1/jwt_templates', { name: 'supabase', claims: { aud: 'authenticated' } });
  const waitlistEntry = await post('/v1/waitlist_entries', { email_address: 'waiting@example.com' });
  const socialProvider = await post('/v1/social_providers', {
    kind: 'oidc',
    name: 'seed',
    issuer: 'https://id.example.com',
    client_id: 'seed',
    client_secret: 'seed',
  });
  const deliveries = await h.call('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key });
  const emails = await h.call('GET', '/v1/emails', { key });
  const scimToken = await post('/v1/scim_tokens', { organization_id: org.id, name: 'Seed' });
  const scimGroup = await h.call('POST', '/scim/v2/Groups', { key: scimToken.token, body: { displayName: 'Seed' } });
  const ssoDomain = await post(`/v1/organizations/${org.id}/domains`, { name: 'sso.seed.example.com' });
  await h.call('PATCH', `/v1/organizations/${org.id}/domains/${ssoDomain.id}`, { key, body: { verified: true } });
  const ssoConnection = await post('/v1/sso_connections', {
    organization_id: org.id,
    provider: 'saml',
    name: 'Seed',
    domains: ['sso.seed.example.com'],
  });
  Object.assign(seeds, {
    users: user.id,
    organizations: org.id,
    memberships: member.id,
    invitations: invitation.id,
    domains: domain.id,
    permissions: permission.id,
    roles: role.id,
    webhook_endpoints: endpoint.id,
    oauth_applications: oauthApp.id,
    deliveries: deliveries.body.data[0]?.id ?? 'msg_01J00000000000000000000000',
    sessions: session.id,
    actor_tokens: actorToken.id,
    sign_in_tokens: signInToken.id,
    emails: emails.body.data[0]?.id ?? 'email_01J00000000000000000000000',
    sms: 'sms_01J00000000000000000000000',
    passkeys: 'passkey_01J00000000000000000000000',
    membership_requests: 'orgmemreq_01J00000000000000000000000',
    network_acls: acl.id,
    scim_tokens: scimToken.id,
    scim_groups: scimGroup.body.id,
    api_keys: apiKey.id,
    plans: plan.id,
    stripe: instance.instanceId,
    twilio: instance.instanceId,
    lti_platforms: ltiPlatform.id,
    waitlist_entries: waitlistEntry.id,
    social_providers: socialProvider.id,
    sso_connections: ssoConnection.id,
    tokens: 'supabase',
    jwt_templates: jwtTemplate.id,
    allowlist_identifiers: 'alid_00000000000000000000000000',
  });
  doc = (await h.call('GET', '/v1/openapi.json')).body;
}, 60_000);

/** Every operation, deletions last so the seeded resources stay for the rest. */
function operations(): { method: string; path: string; op: Operation }[] {
  const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  return [...ops.filter((o) => o.method !== 'DELETE'), ...ops.filter((o) => o.method === 'DELETE')];
}

const bodySchema = (op: Operation) => op.requestBody?.content['application/json']?.schema;

function queryString(values: Record<string, unknown>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) for (const one of Array.isArray(v) ? v : [v]) qs.append(k, String(one));
  const s = qs.toString();
  return s ? `?${s}` : '';
}

describe('the BAPI OpenAPI document', () => {
  it('describes every path parameter with its pattern and every strict body with additionalProperties: false', () => {
    const problems: string[] = [];
    for (const { method, path, op } of operations()) {
      for (const p of op.parameters.filter((x) => x.in === 'path')) {
        if (!p.required || typeof p.schema.pattern !== 'string')
          problems.push(`${method} ${path}: path parameter ${p.name} has no pattern`);
        else if (!isValid(p.schema, seedFor(path, p.name), doc.components.schemas))
          problems.push(`${method} ${path}: a real ${p.name} does not match ${p.schema.pattern}`);
      }
      const body = bodySchema(op);
      if (!body) continue;
      const members = body.oneOf ?? (body.type === 'array' ? [body.items!] : [body]);
      // A processor's event is the processor's shape, not ours to make strict.
      const foreign = path.startsWith('/v1/billing/webhooks/') || path.startsWith('/v1/sms_callbacks/');
      for (const m of members)
        if (m.additionalProperties !== false && !foreign) problems.push(`${method} ${path}: body allows unknown fields`);
    }
    expect(problems).toEqual([]);
  });

  it('never calls a request invalid that the document says is valid', async () => {
    const failures: string[] = [];
    const failing = new Set<string>();
    const components = doc.components.schemas;
    let sent = 0;
    for (const { method, path, op } of operations()) {
      const name = `${method} ${path}`;
      if (path === '/v1/openapi.json') continue;
      // Its credential is the Stripe-Signature header over the raw body, which no document example carries (billing.test.ts).
      if (path.startsWith('/v1/billing/webhooks/')) continue;
      // Its credential is X-Twilio-Signature over the URL and the form (sms.test.ts).
      if (path.startsWith('/v1/sms_callbacks/')) continue;
      const url = path.replace(/\{([a-z_]+)\}/g, (_, p: string) => seedFor(path, p));
      const requests: { query: Record<string, unknown>; body: unknown }[] = [];
      const schema = bodySchema(op);
      const bodies = schema ? examples(schema, { components, perValue: 10 }) : [undefined];
      if (schema && !op.requestBody!.required) bodies.push(undefined);
      if (bodies.length === 0) failures.push(`${name}: no body example can be built from the document`);
      for (const body of bodies) requests.push({ query: {}, body });
      for (const p of op.parameters.filter((x) => x.in === 'query')) {
        for (const v of examples(p.schema, { components, perValue: 10 })) requests.push({ query: { [p.name]: v }, body: bodies[0] });
      }
      for (const r of requests) {
        h.clock.advance(150); // stay under the per-key rate limit
        const res = await h.call(method, `${url}${queryString(r.query)}`, { key, body: r.body });
        sent++;
        if (path === '/v1/rate_limit_policy' && method === 'PATCH' && res.status === 200) await restoreDefaultBudgets();
        const first = res.body?.errors?.[0];
        const reason = first?.meta?.reason as string | undefined;
        const refused =
          res.status === 400 ||
          res.status >= 500 ||
          res.status === 413 ||
          res.status === 415 ||
          (res.status === 422 && !STATE_REASONS.has(reason!) && !documented(op, reason));
        if (refused) {
          failing.add(name);
          failures.push(
            `${name}${queryString(r.query)} ${JSON.stringify(r.body)} -> ${res.status} ${first?.code} ${JSON.stringify(first?.meta)} ${first?.message}`,
          );
        }
      }
    }
    expect(sent).toBeGreaterThan(500); // the document yields many requests, not a handful
    expect([...failing].sort()).toEqual([]);
    expect(failures).toEqual([]);
  }, 600_000);
});

/** A valid example may tighten the key's own budget to 1: put every budget back before the next request. */
async function restoreDefaultBudgets() {
  h.clock.advance(10_000);
  const body = Object.fromEntries(BUDGET_NAMES.map((n) => [n, null]));
  const res = await h.call('PATCH', '/v1/rate_limit_policy', { key, body });
  if (res.status !== 200) throw new Error(`restoring the policy: ${res.status}`);
}

/**
 * A rule JSON Schema cannot state (until later than since, a digest's cost limits) is
 * stated in a description of the request schema as "(422 <reason>)".
 */
function documented(op: Operation, reason: string | undefined): boolean {
  if (!reason) return false;
  const text = JSON.stringify([bodySchema(op), op.parameters, doc.components.schemas]);
  return text.includes(`(422 ${reason})`) || text.includes(`(422 ${reason} otherwise)`);
}

function seedFor(path: string, param: string): string {
  const segments = path.split('/');
  const at = segments.indexOf(`{${param}}`);
  const seed = seeds[segments[at - 1]!];
  if (!seed) throw new Error(`no seeded id for ${param} in ${path}`);
  return seed;
}
