import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingSettings } from '../db/schema';
import { eventsSince, type TestInstance } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { startFakeStripe } from '../testing/fake-stripe';
import { createTestUser, setSettings, signedInClient } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

/** Plans, processor settings, Stripe webhooks, checkout against a fake Stripe API, and plan claims in session JWTs. */
const WHSEC = 'whsec_test_billing_secret';
const SK = 'sk_test_fakeBillingKey123';
const stripe = new Stripe('sk_test_unused');

let h: TestHarness;
let i: TestInstance;
let fake: Awaited<ReturnType<typeof startFakeStripe>>;
beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
  i = await h.createInstance();
  await setSettings(h, i.instanceId, { organizations_enabled: true });
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake.close();
  await h.close();
});

const bapi = (method: string, path: string, body?: unknown, key = i.secret) => h.call(method, path, { key, body });
let seq = 0;
const newUser = (tag: string) => createTestUser(h, i, { email_address: [`${tag}.${++seq}@example.com`] });

async function configure() {
  const res = await bapi('PATCH', '/v1/billing/settings', { secret_key: SK, webhook_signing_secret: WHSEC, api_base_url: fake.url });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

let planSeq = 0;
async function plan(payer: 'user' | 'organization', features: string[]) {
  const n = ++planSeq;
  const res = await bapi('POST', '/v1/billing/plans', {
    key: `pro_${n}`,
    name: `Pro ${n}`,
    payer,
    prices: [
      { processor_price_id: `price_m_${n}`, amount: 1200, currency: 'usd', interval: 'month' },
      { processor_price_id: `price_y_${n}`, amount: 12000, currency: 'usd', interval: 'year' },
    ],
    features,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

// --- Stripe events, built like Stripe's and signed with the stripe package's own test helper ---
let evtSeq = 0;
let subSeq = 0;
const nowSec = () => Math.floor(h.clock.now() / 1000);
function subscription(o: { id: string; subject?: string; price: string; status: string; cancel_at?: number | null }) {
  const start = nowSec();
  return {
    id: o.id,
    object: 'subscription',
    customer: `cus_${o.id}`,
    status: o.status,
    cancel_at: o.cancel_at ?? null,
    canceled_at: o.status === 'canceled' ? start : null,
    metadata: o.subject ? { latchkey_subject: o.subject } : {},
    items: {
      object: 'list',
      data: [
        {
          id: `si_${o.id}`,
          object: 'subscription_item',
          price: { id: o.price, object: 'price' },
          current_period_start: start,
          current_period_end: start + 30 * 86400,
        },
      ],
    },
  };
}
const event = (type: string, object: unknown, created: number) => ({
  id: `evt_test_${++evtSeq}`,
  object: 'event',
  api_version: '2025-03-31.basil',
  created,
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});
async function deliver(evt: unknown, opts: { secret?: string; timestamp?: number; instanceId?: string } = {}) {
  const payload = JSON.stringify(evt, null, 2);
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? WHSEC, timestamp: opts.timestamp ?? nowSec() });
  return h.call('POST', `/v1/billing/webhooks/stripe/${opts.instanceId ?? i.instanceId}`, {
    raw: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  });
}
const subsOf = async (subject: string) => (await bapi('GET', `/v1/subscriptions?subject=${subject}`)).body.data;

describe('plans', () => {
  it('creates, lists, reads by id or key, updates and deletes plans (billing:read|write)', async () => {
    const p = await plan('user', ['export', 'api', 'export']);
    expect(p).toMatchObject({
      object: 'plan',
      id: expect.stringMatching(/^plan_/),
      payer: 'user',
      features: ['api', 'export'],
      description: null,
    });
    expect((await bapi('GET', `/v1/billing/plans/${p.key}`)).body).toEqual(p);
    expect((await bapi('GET', '/v1/billing/plans?payer=user')).body.data).toContainEqual(p);
    h.clock.advance(1);
    const updated = await bapi('PATCH', `/v1/billing/plans/${p.id}`, { name: 'Professional', features: ['api'] });
    expect(updated.body).toMatchObject({ id: p.id, key: p.key, name: 'Professional', features: ['api'] });
    expect((await bapi('GET', `/v1/audit_logs?action=plan.updated&target=${p.id}`)).body.data).toHaveLength(1);
    expect((await bapi('DELETE', `/v1/billing/plans/${p.id}`)).body).toEqual({ object: 'plan', id: p.id, deleted: true });
    expectError(await bapi('GET', `/v1/billing/plans/${p.id}`), 404, 'NOT_FOUND');
  });

  it('validates plans and refuses a taken key or a missing scope', async () => {
    const p = await plan('organization', []);
    expectError(await bapi('POST', '/v1/billing/plans', { key: p.key, name: 'x', payer: 'user' }), 409, 'CONFLICT', { reason: 'taken' });
    expectError(await bapi('POST', '/v1/billing/plans', { key: 'Bad Key', name: 'x', payer: 'user' }), 422, 'VALIDATION_FAILED', {
      param: 'key',
    });
    expectError(await bapi('POST', '/v1/billing/plans', { key: 'ok', name: 'x', payer: 'team' }), 422, 'VALIDATION_FAILED', {
      param: 'payer',
    });
    expectError(
      await bapi('POST', '/v1/billing/plans', {
        key: 'ok2',
        name: 'x',
        payer: 'user',
        prices: [{ processor_price_id: 'p', amount: -1, currency: 'usd', interval: 'month' }],
      }),
      422,
      'VALIDATION_FAILED',
      { param: 'prices.0.amount' },
    );
    expectError(await bapi('PATCH', `/v1/billing/plans/${p.id}`, { key: 'renamed' }), 422, 'VALIDATION_FAILED', {
      param: 'key',
      reason: 'unknown_field',
    });
    const reader = await h.createKey(i.instanceId, 'billing:read');
    expect((await bapi('GET', '/v1/billing/plans', undefined, reader.secret)).status).toBe(200);
    expectError(await bapi('POST', '/v1/billing/plans', { key: 'nope', name: 'x', payer: 'user' }, reader.secret), 403, 'SCOPE_MISSING');
    const other = await h.createKey(i.instanceId, 'users:read');
    expectError(await bapi('GET', '/v1/subscriptions', undefined, other.secret), 403, 'SCOPE_MISSING');
  });
});

describe('processor settings', () => {
  it('keeps secrets write-only and encrypted at rest', async () => {
    const fresh = await h.createInstance();
    const before = await h.call('GET', '/v1/billing/settings', { key: fresh.secret });
    expect(before.body).toMatchObject({
      processor: 'stripe',
      secret_key_set: false,
      webhook_signing_secret_set: false,
      api_base_url: null,
      updated_at: null,
    });
    expect(before.body.webhook_url).toBe(`http://localhost:3000/v1/billing/webhooks/stripe/${fresh.instanceId}`);
    const set = await h.call('PATCH', '/v1/billing/settings', {
      key: fresh.secret,
      body: { secret_key: SK, webhook_signing_secret: WHSEC },
    });
    expect(set.body).toMatchObject({ secret_key_set: true, webhook_signing_secret_set: true });
    expect(JSON.stringify(set.body)).not.toContain(SK);
    expect(JSON.stringify((await h.call('GET', '/v1/billing/settings', { key: fresh.secret })).body)).not.toContain(WHSEC);
    const [row] = await h.runtime.deps.db.select().from(billingSettings).where(eq(billingSettings.instanceId, fresh.instanceId));
    expect(JSON.stringify(row)).not.toContain(SK);
    expect(JSON.stringify(row)).not.toContain(WHSEC);
    expect(h.runtime.deps.cipher.decrypt(row!.secretKeyEncrypted!)).toBe(SK);
    const log = (await h.call('GET', '/v1/audit_logs?action=billing_settings.updated', { key: fresh.secret })).body.data;
    expect(log[0]).toMatchObject({ actor_kind: 'secret_key', details: { fields: ['secret_key', 'webhook_signing_secret'] } });
    expect(JSON.stringify(log)).not.toContain(SK);

    const cleared = await h.call('PATCH', '/v1/billing/settings', { key: fresh.secret, body: { secret_key: null } });
    expect(cleared.body).toMatchObject({ secret_key_set: false, webhook_signing_secret_set: true });
  });

  it('refuses malformed secrets and API bases', async () => {
    expectError(await bapi('PATCH', '/v1/billing/settings', { secret_key: 'pk_test_123' }), 422, 'VALIDATION_FAILED', {
      param: 'secret_key',
    });
    expectError(await bapi('PATCH', '/v1/billing/settings', { webhook_signing_secret: 'nope' }), 422, 'VALIDATION_FAILED', {
      param: 'webhook_signing_secret',
    });
    expectError(await bapi('PATCH', '/v1/billing/settings', { api_base_url: 'ftp://x' }), 422, 'VALIDATION_FAILED', {
      param: 'api_base_url',
      reason: 'invalid_url',
    });
    const live = await h.createInstance({ environment: 'live' });
    const res = await h.call('PATCH', '/v1/billing/settings', { key: live.secret, body: { api_base_url: 'http://127.0.0.1:9' } });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'api_base_url', reason: 'invalid_url' });
  });
});

describe('Stripe webhooks', () => {
  beforeAll(configure);

  it('creates, updates and deletes subscriptions in order, each with its event carrying the full resource', async () => {
    const p = await plan('user', ['reports']);
    const userId = await newUser('inorder');
    const id = `sub_stripe_${++subSeq}`;
    const t = nowSec();
    h.clock.advance(1);
    const since = h.clock.now();
    const created = await deliver(
      event('customer.subscription.created', subscription({ id, subject: userId, price: `price_m_${planSeq}`, status: 'active' }), t),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({ received: true, applied: true });
    const [sub] = await subsOf(userId);
    expect(sub).toMatchObject({
      object: 'subscription',
      id: expect.stringMatching(/^sub_/),
      subject: userId,
      plan: { id: p.id, key: p.key, features: ['reports'] },
      status: 'active',
      cancel_at: null,
      deleted: false,
      processor: 'stripe',
      processor_subscription_id: id,
      processor_customer_id: `cus_${id}`,
      processor_price_id: `price_m_${planSeq}`,
    });
    expect(sub.current_period_end - sub.current_period_start).toBe(30 * 86400 * 1000);

    const cancelAt = t + 10 * 86400;
    await deliver(
      event(
        'customer.subscription.updated',
        subscription({ id, subject: userId, price: `price_y_${planSeq}`, status: 'active', cancel_at: cancelAt }),
        t + 1,
      ),
    );
    await deliver(
      event('customer.subscription.deleted', subscription({ id, subject: userId, price: `price_y_${planSeq}`, status: 'canceled' }), t + 2),
    );

    const events = await eventsSince(h, i.instanceId, since);
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.updated', 'subscription.deleted']);
    expect(events[0]!.data).toEqual(sub);
    expect(events[1]!.data).toMatchObject({ id: sub.id, cancel_at: cancelAt * 1000, processor_price_id: `price_y_${planSeq}` });
    expect(events[2]!.data).toMatchObject({ id: sub.id, status: 'canceled', deleted: true });
    expect(await subsOf(userId)).toEqual([events[2]!.data]);
  });

  it('applies a redelivered event once', async () => {
    await plan('user', []);
    const userId = await newUser('twice');
    const evt = event(
      'customer.subscription.created',
      subscription({ id: `sub_stripe_${++subSeq}`, subject: userId, price: `price_m_${planSeq}`, status: 'active' }),
      nowSec(),
    );
    h.clock.advance(1);
    const since = h.clock.now();
    expect((await deliver(evt)).body).toEqual({ received: true, applied: true });
    expect((await deliver(evt)).body).toEqual({ received: true, applied: false });
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['subscription.created']);
    expect(await subsOf(userId)).toHaveLength(1);
  });

  it('never moves a subscription back when events arrive out of order', async () => {
    await plan('user', []);
    const userId = await newUser('ooo');
    const id = `sub_stripe_${++subSeq}`;
    const t = nowSec();
    const price = `price_m_${planSeq}`;
    const created = event('customer.subscription.created', subscription({ id, subject: userId, price, status: 'incomplete' }), t);
    const activated = event('customer.subscription.updated', subscription({ id, subject: userId, price, status: 'active' }), t + 5);
    const pastDue = event('customer.subscription.updated', subscription({ id, subject: userId, price, status: 'past_due' }), t + 3);
    h.clock.advance(1);
    const since = h.clock.now();
    expect((await deliver(activated)).body.applied).toBe(true);
    expect((await deliver(created)).body.applied).toBe(false);
    expect((await deliver(pastDue)).body.applied).toBe(false);
    expect((await subsOf(userId))[0]).toMatchObject({ status: 'active' });
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['subscription.created']);

    // Deleted first, then a late update: it stays deleted and nothing is emitted for the ghost.
    const id2 = `sub_stripe_${++subSeq}`;
    const del = event('customer.subscription.deleted', subscription({ id: id2, subject: userId, price, status: 'canceled' }), t + 9);
    const late = event('customer.subscription.updated', subscription({ id: id2, subject: userId, price, status: 'active' }), t + 8);
    const lateCreated = event('customer.subscription.created', subscription({ id: id2, subject: userId, price, status: 'active' }), t + 7);
    h.clock.advance(1);
    const since2 = h.clock.now();
    await deliver(del);
    expect((await deliver(late)).body.applied).toBe(false);
    expect((await deliver(lateCreated)).body.applied).toBe(false);
    const ghost = (await subsOf(userId)).find((s: { processor_subscription_id: string }) => s.processor_subscription_id === id2);
    expect(ghost).toMatchObject({ status: 'canceled', deleted: true });
    expect(await eventsSince(h, i.instanceId, since2)).toEqual([]);
  });

  it('refuses a wrong, missing or old signature with 400 and changes nothing', async () => {
    await plan('user', []);
    const userId = await newUser('badsig');
    const evt = event(
      'customer.subscription.created',
      subscription({ id: `sub_stripe_${++subSeq}`, subject: userId, price: `price_m_${planSeq}`, status: 'active' }),
      nowSec(),
    );
    expectError(await deliver(evt, { secret: 'whsec_wrong' }), 400, 'MALFORMED_REQUEST', { reason: 'signature_invalid' });
    expectError(await deliver(evt, { timestamp: nowSec() - 3600 }), 400, 'MALFORMED_REQUEST', { reason: 'signature_invalid' });
    const unsigned = await h.call('POST', `/v1/billing/webhooks/stripe/${i.instanceId}`, { body: evt });
    expectError(unsigned, 400, 'MALFORMED_REQUEST', { reason: 'signature_invalid' });
    // A body changed after signing.
    const payload = JSON.stringify(evt);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC, timestamp: nowSec() });
    const tampered = await h.call('POST', `/v1/billing/webhooks/stripe/${i.instanceId}`, {
      raw: payload.replace('"active"', '"trialing"'),
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    expectError(tampered, 400, 'MALFORMED_REQUEST', { reason: 'signature_invalid' });
    expect(await subsOf(userId)).toEqual([]);
    // The same event, properly signed, still applies: the refused ones were not recorded.
    expect((await deliver(evt)).body.applied).toBe(true);
  });

  it('answers 404 for an instance without billing, and ignores events it does not act on', async () => {
    const fresh = await h.createInstance();
    expectError(await deliver(event('customer.subscription.created', {}, nowSec()), { instanceId: fresh.instanceId }), 404, 'NOT_FOUND');
    expect((await deliver(event('invoice.paid', { id: 'in_1', object: 'invoice' }, nowSec()))).body).toEqual({
      received: true,
      applied: false,
    });
    // A subscription naming no subject of ours is acknowledged, not applied.
    expect(
      (
        await deliver(
          event('customer.subscription.created', subscription({ id: 'sub_foreign', price: 'price_x', status: 'active' }), nowSec()),
        )
      ).body.applied,
    ).toBe(false);
  });
});

describe('claims and checkout', () => {
  beforeAll(configure);

  it('puts the user’s and the active organization’s plans and features in the session JWT, following subscription changes', async () => {
    const userPlan = await plan('user', ['export']);
    const userPrice = `price_m_${planSeq}`;
    const orgPlan = await plan('organization', ['sso', 'audit']);
    const orgPrice = `price_y_${planSeq}`;
    const userId = await newUser('claims');
    const { b, sessionId } = await signedInClient(h, i, userId);
    const token = async () => decodeJwt((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).body.jwt);
    expect(await token()).not.toHaveProperty('pla');

    const t = nowSec();
    const uid = `sub_stripe_${++subSeq}`;
    await deliver(
      event('customer.subscription.created', subscription({ id: uid, subject: userId, price: userPrice, status: 'active' }), t),
    );
    expect(await token()).toMatchObject({ pla: `u:${userPlan.key}`, fea: 'u:export' });
    // Token refresh reads the plans in its one statement: the same claims.
    let minted = (await bapi('POST', '/v1/sessions', { user_id: userId })).body;
    const refreshed = async () => {
      const r = (
        await h.call('POST', `/fapi/${i.instanceId}/v1/sessions/${minted.id}/refresh`, { body: { refresh_token: minted.refresh_token } })
      ).body;
      minted = { ...minted, refresh_token: r.refresh_token };
      return decodeJwt(r.jwt);
    };
    expect(await refreshed()).toMatchObject({ pla: `u:${userPlan.key}`, fea: 'u:export' });

    const org = (await bapi('POST', '/v1/organizations', { name: 'Billed team', created_by: userId })).body;
    await deliver(
      event(
        'customer.subscription.created',
        subscription({ id: `sub_stripe_${++subSeq}`, subject: org.id, price: orgPrice, status: 'trialing' }),
        t,
      ),
    );
    expect(await token()).not.toHaveProperty('fea', expect.stringContaining('o:'));
    await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, { body: { active_organization_id: org.id } });
    expect(await token()).toMatchObject({ org_id: org.id, pla: `u:${userPlan.key},o:${orgPlan.key}`, fea: 'u:export,o:audit,o:sso' });

    await deliver(
      event('customer.subscription.updated', subscription({ id: uid, subject: userId, price: userPrice, status: 'unpaid' }), t + 1),
    );
    expect(await token()).toMatchObject({ pla: `o:${orgPlan.key}`, fea: 'o:audit,o:sso' });
    expect(await refreshed()).not.toHaveProperty('pla');
    await deliver(
      event('customer.subscription.deleted', subscription({ id: uid, subject: userId, price: userPrice, status: 'canceled' }), t + 2),
    );
    expect((await token()).pla).toBe(`o:${orgPlan.key}`);

    // The FAPI status a hosted profile shows.
    const status = await b.call('GET', `/v1/organizations/${org.id}/billing`);
    expect(status.body).toMatchObject({
      object: 'billing_status',
      subject: org.id,
      subscription: { status: 'trialing', plan: { key: orgPlan.key } },
    });
    expect((await b.call('GET', '/v1/me/billing')).body).toMatchObject({ subject: userId, subscription: null });
  });

  it('starts a checkout through the processor API and answers its URL', async () => {
    const p = await plan('user', ['export']);
    const userId = await newUser('checkout');
    const { b } = await signedInClient(h, i, userId);
    fake.requests.length = 0;
    const res = await b.call('POST', '/v1/me/billing/checkout', {
      body: { plan: p.key, interval: 'year', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/cancel' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      object: 'checkout_session',
      id: 'cs_test_' + fake.state.seq,
      url: `https://checkout.stripe.test/c/pay/cs_test_${fake.state.seq}`,
    });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', authorization: `Bearer ${SK}` });
    expect(req!.form).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': `price_y_${planSeq}`,
      success_url: 'https://app.example.com/ok',
      client_reference_id: userId,
      customer_email: `checkout.${seq}@example.com`,
      'subscription_data[metadata][latchkey_subject]': userId,
      'subscription_data[metadata][latchkey_plan_id]': p.id,
    });
    expect((await bapi('GET', `/v1/audit_logs?action=billing.checkout_started&target=${userId}`)).body.data).toHaveLength(1);

    // The subscription it leads to arrives by webhook, then the portal opens for its customer.
    expectError(
      await b.call('POST', '/v1/me/billing/portal', { body: { return_url: 'https://app.example.com/account' } }),
      409,
      'CONFLICT',
      { reason: 'no_subscription' },
    );
    const id = `sub_stripe_${++subSeq}`;
    await deliver(
      event(
        'customer.subscription.created',
        subscription({ id, subject: userId, price: `price_y_${planSeq}`, status: 'active' }),
        nowSec(),
      ),
    );
    const portal = await b.call('POST', '/v1/me/billing/portal', { body: { return_url: 'https://app.example.com/account' } });
    expect(portal.body).toEqual({ object: 'billing_portal_session', url: `https://billing.stripe.test/p/session/${fake.state.seq}` });
    expect(fake.requests.at(-1)!.form).toEqual({ customer: `cus_${id}`, return_url: 'https://app.example.com/account' });
  });

  it('lets only organization admins check out an organization plan, and names what is wrong', async () => {
    const orgPlan = await plan('organization', ['sso']);
    const userPlan = await plan('user', []);
    const adminId = await newUser('orgadmin');
    const memberId = await newUser('orgmember');
    const org = (await bapi('POST', '/v1/organizations', { name: 'Checkout team', created_by: adminId })).body;
    await bapi('POST', `/v1/organizations/${org.id}/memberships`, { user_id: memberId, role: 'org:member' });
    const body = (planKey: string) => ({
      body: { plan: planKey, success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/no' },
    });
    const admin = (await signedInClient(h, i, adminId)).b;
    const member = (await signedInClient(h, i, memberId)).b;

    const ok = await admin.call('POST', `/v1/organizations/${org.id}/billing/checkout`, body(orgPlan.key));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(fake.requests.at(-1)!.form).toMatchObject({
      'subscription_data[metadata][latchkey_subject]': org.id,
      'line_items[0][price]': `price_m_${planSeq - 1}`,
    });
    expect((await member.call('POST', `/v1/organizations/${org.id}/billing/checkout`, body(orgPlan.key))).status).toBe(403);
    expectError(await admin.call('POST', `/v1/organizations/${org.id}/billing/checkout`, body(userPlan.key)), 409, 'CONFLICT', {
      reason: 'wrong_payer',
    });
    expectError(await admin.call('POST', '/v1/me/billing/checkout', body(orgPlan.key)), 409, 'CONFLICT', { reason: 'wrong_payer' });
    expectError(await admin.call('POST', '/v1/me/billing/checkout', body('no_such_plan')), 404, 'NOT_FOUND');
    expectError(
      await admin.call('POST', '/v1/me/billing/checkout', {
        body: { plan: userPlan.key, success_url: 'javascript:alert(1)', cancel_url: 'https://a.example' },
      }),
      422,
      'VALIDATION_FAILED',
      { param: 'success_url' },
    );
    const priceless = (await bapi('POST', '/v1/billing/plans', { key: `free_${planSeq}`, name: 'Free', payer: 'user' })).body;
    expectError(await admin.call('POST', '/v1/me/billing/checkout', body(priceless.key)), 409, 'CONFLICT', { reason: 'no_price' });

    fake.state.fail = true;
    const p = await plan('user', []);
    expectError(await admin.call('POST', '/v1/me/billing/checkout', body(p.key)), 409, 'CONFLICT', { reason: 'processor_error' });
    fake.state.fail = false;

    const unconfigured = await h.createInstance();
    await h.call('POST', '/v1/billing/plans', {
      key: unconfigured.secret,
      body: {
        key: 'solo',
        name: 'Solo',
        payer: 'user',
        prices: [{ processor_price_id: 'price_1', amount: 1, currency: 'usd', interval: 'month' }],
      },
    });
    const soloUser = await createTestUser(h, unconfigured, { email_address: ['solo@example.com'] });
    const solo = (await signedInClient(h, unconfigured, soloUser)).b;
    expectError(await solo.call('POST', '/v1/me/billing/checkout', body('solo')), 409, 'CONFLICT', { reason: 'not_configured' });
    await solo.call('DELETE', '/v1/client');
    expect((await solo.call('POST', '/v1/me/billing/checkout', body('solo'))).status).toBe(401);
  });
});
