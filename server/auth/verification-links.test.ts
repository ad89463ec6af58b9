import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLogs } from '../db/schema';
import { browserOf, codeSentTo, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser, signedInClient } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { logSink } from '../testing/log-sink';

/**
 * Email links that verify an address (Latchkey's own FAPI; clerk-js drives the same in
 * server/api/fapi/clerk/clerk-js-email-links.test.ts): a sign-up's (`prepare_verification
 * {strategy: email_link, redirect_url}`) and one added to an account. A link is single-use,
 * expires, belongs to the one flow it was made for, and its token is never logged.
 */
const { lines, sink } = logSink();
const h = sharedHarness({ env: { LOG_LEVEL: 'info' }, logDestination: sink });
const APP = 'https://app.example.com';
const LINKS = { password: true, email_code: true, username: false, phone_code: false, email_link: true, email_link_same_browser: false };
const PASSWORD = 'a sturdy passphrase 9';
let n = 0;

const linkSentTo = async (address: string) => {
  const [mail] = await h.outbox(address);
  return { mail: mail!, link: new URL(String(mail!.data.url)) };
};

describe('sign-up by email link', () => {
  it('the link completes the sign-up of the browser that asked (user, session), once; the opener is sent to the app with Clerk’s parameters and no session', async () => {
    const I = await instanceWith(h, { allowed_origins: [APP], sign_in_methods: LINKS });
    const email = `links${++n}@example.com`;
    const b = browserOf(h, I);
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } })).body.response
      .id as string;
    const prepare = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body, headers });

    expectError(await prepare({ strategy: 'email_link' }), 422, 'VALIDATION_FAILED', { param: 'redirect_url', reason: 'required' });
    expectError(await prepare({ strategy: 'email_link', redirect_url: 'https://evil.example.net/x' }), 422, 'VALIDATION_FAILED', {
      param: 'redirect_url',
      reason: 'redirect_url_not_allowed',
    });
    expect(await h.outbox(email)).toEqual([]);

    const prepared = await prepare({ strategy: 'email_link', redirect_url: `${APP}/verified` }, { 'accept-language': 'fr' });
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.verifications.email_address).toMatchObject({ strategy: 'email_link', status: 'unverified' });
    const { mail, link } = await linkSentTo(email);
    expect(mail).toMatchObject({
      template: 'verification_link',
      locale: 'fr',
      subject: expect.stringContaining('Vérifiez votre adresse e-mail'),
    });
    expect(link.pathname).toBe(`/fapi/${I.instanceId}/v1/verify`);
    const secret = link.searchParams.get('token')!.split('.')[1]!;

    // A code is no way through while the link is the verification asked for.
    expectError(await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: '123456' } }), 422, 'CODE_EXPIRED', {
      reason: 'not_prepared',
    });

    // The secret belongs to this sign-up only: under another sign-up's id (with a link of its own pending) it fails.
    const other = browserOf(h, I);
    const otherId = (
      await other.call('POST', '/v1/client/sign_ups', { body: { email_address: `links${++n}@example.com`, password: PASSWORD } })
    ).body.response.id as string;
    await other.call('POST', `/v1/client/sign_ups/${otherId}/prepare_verification`, {
      body: { strategy: 'email_link', redirect_url: `${APP}/verified` },
    });
    const borrowed = await h.request(
      'GET',
      `${link.pathname}?token=${otherId}.${secret}&redirect_url=${encodeURIComponent(`${APP}/verified`)}`,
    );
    expect(borrowed.headers.get('location')).toBe(`${APP}/verified?__clerk_status=failed`);

    // Opened in another browser (no cookie of ours): that browser gets no session and no cookie.
    const opened = await h.request('GET', `${link.pathname}${link.search}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('set-cookie')).toBeNull();
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    const landed = new URL(opened.headers.get('location')!);
    expect(`${landed.origin}${landed.pathname}`).toBe(`${APP}/verified`);
    expect(landed.searchParams.get('__clerk_status')).toBe('verified');
    const sessionId = landed.searchParams.get('__clerk_created_session')!;

    const polled = (await b.call('GET', `/v1/client/sign_ups/${id}`)).body.response;
    expect(polled).toMatchObject({
      status: 'complete',
      created_session_id: sessionId,
      verifications: { email_address: { strategy: 'email_link', status: 'verified' } },
    });
    expect((await b.call('GET', '/v1/client')).body.last_active_session_id).toBe(sessionId);
    const user = await h.call('GET', `/v1/users/${polled.created_user_id}`, { key: I.secret });
    expect(user.body.email_addresses).toMatchObject([
      { email_address: email, verification: { status: 'verified', strategy: 'email_link' } },
    ]);

    const again = await h.request('GET', `${link.pathname}${link.search}`);
    expect(new URL(again.headers.get('location')!).searchParams.get('__clerk_status')).toBe('expired');
    // The link's secret is in no log line (the request log names the route, never its query).
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes(secret))).toEqual([]);
  });

  it('is refused when the instance sends no links; a new code supersedes a link, and a link past 10 minutes is expired', async () => {
    const off = await instanceWith(h, { allowed_origins: [APP], sign_in_methods: { ...LINKS, email_link: false } });
    const ob = browserOf(h, off);
    const offId = (await ob.call('POST', '/v1/client/sign_ups', { body: { email_address: `links${++n}@example.com`, password: PASSWORD } }))
      .body.response.id as string;
    expectError(
      await ob.call('POST', `/v1/client/sign_ups/${offId}/prepare_verification`, {
        body: { strategy: 'email_link', redirect_url: `${APP}/v` },
      }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'strategy',
        reason: 'strategy_not_allowed',
      },
    );

    const I = await instanceWith(h, { allowed_origins: [APP], sign_in_methods: LINKS });
    const email = `links${++n}@example.com`;
    const b = browserOf(h, I);
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } })).body.response
      .id as string;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_link', redirect_url: `${APP}/v` } });
    const { link: first } = await linkSentTo(email);
    h.clock.advance(31_000);
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    const code = await codeSentTo(h, email);
    expect(
      new URL((await h.request('GET', `${first.pathname}${first.search}`)).headers.get('location')!).searchParams.get('__clerk_status'),
    ).toBe('expired');

    h.clock.advance(31_000);
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_link', redirect_url: `${APP}/v` } });
    const { link: late } = await linkSentTo(email);
    expectError(await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } }), 422, 'CODE_EXPIRED');
    h.clock.advance(10 * 60_000 + 1);
    expect((await b.call('GET', `/v1/client/sign_ups/${id}`)).body.response.verifications.email_address.status).toBe('expired');
    expect(
      new URL((await h.request('GET', `${late.pathname}${late.search}`)).headers.get('location')!).searchParams.get('__clerk_status'),
    ).toBe('expired');
    expect((await b.call('GET', `/v1/client/sign_ups/${id}`)).body.response.status).toBe('missing_requirements');
  });
});

describe('an added address verified by email link', () => {
  it('GET /v1/me/email_addresses/:id answers the account’s own address; the link verifies it wherever opened (audited), signs nobody in, works once', async () => {
    const I = await instanceWith(h, { allowed_origins: [APP], sign_in_methods: LINKS });
    const email = `links${++n}@example.com`;
    const userId = await createTestUser(h, I, { email_address: [email], password: PASSWORD });
    const { b } = await signedInClient(h, I, userId);
    const second = `second${n}@example.com`;
    const id = (await b.call('POST', '/v1/me/email_addresses', { body: { email_address: second } })).body.id as string;
    expect((await b.call('GET', `/v1/me/email_addresses/${id}`)).body).toMatchObject({
      object: 'email_address',
      id,
      email_address: second,
      verification: { status: 'unverified' },
    });

    // Another account's address is not found.
    const stranger = await createTestUser(h, I, { email_address: [`stranger${n}@example.com`], password: PASSWORD });
    const { b: sb } = await signedInClient(h, I, stranger);
    expectError(await sb.call('GET', `/v1/me/email_addresses/${id}`), 404, 'NOT_FOUND');
    expectError(
      await sb.call('POST', `/v1/me/email_addresses/${id}/prepare_verification`, {
        body: { strategy: 'email_link', redirect_url: `${APP}/v` },
      }),
      404,
      'NOT_FOUND',
    );

    expectError(
      await b.call('POST', `/v1/me/email_addresses/${id}/prepare_verification`, { body: { strategy: 'email_link' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'redirect_url', reason: 'required' },
    );
    const prepared = await b.call('POST', `/v1/me/email_addresses/${id}/prepare_verification`, {
      body: { strategy: 'email_link', redirect_url: `${APP}/profile` },
    });
    expect(prepared.body.verification).toMatchObject({ strategy: 'email_link', status: 'unverified' });
    const { mail, link } = await linkSentTo(second);
    expect(mail.template).toBe('verification_link');

    const opened = await h.request('GET', `${link.pathname}${link.search}`);
    expect(opened.headers.get('set-cookie')).toBeNull();
    expect(opened.headers.get('location')).toBe(`${APP}/profile?__clerk_status=verified`);
    expect((await b.call('GET', `/v1/me/email_addresses/${id}`)).body.verification).toEqual({ status: 'verified', strategy: 'email_link' });
    const audited = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, I.instanceId), eq(auditLogs.action, 'user.email_address_verified')));
    expect(audited).toMatchObject([{ target: userId, details: { email_address_id: id, strategy: 'email_link' } }]);
    expect(
      new URL((await h.request('GET', `${link.pathname}${link.search}`)).headers.get('location')!).searchParams.get('__clerk_status'),
    ).toBe('expired');
  });
});
