import { describe, expect, it } from 'vitest';
import { browserOf, codeSentTo, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { settingsPatchSchema } from '../instances/settings';

const h = sharedHarness();
const PASSWORD = 'a sturdy passphrase 9';
let n = 0;

describe('sign-in methods', () => {
  it('email codes only: no password sign-in or reset, no username; the code works', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: false,
        email_code: true,
        username: false,
        phone_code: false,
        email_link: false,
        email_link_same_browser: false,
      },
    });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email], username: `methods${n}`, password: PASSWORD });
    const b = browserOf(h, I);
    const env = (await b.call('GET', '/v1/environment')).body.user_settings;
    expect(env.first_factors).toEqual(['email_code']);
    expect(env.identifiers).toEqual(['email_address']);

    expectError(await b.call('POST', '/v1/client/sign_ins', { body: { identifier: `methods${n}` } }), 422, 'VALIDATION_FAILED', {
      param: 'identifier',
      reason: 'identifier_not_allowed',
    });
    expectError(
      await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } }),
      422,
      'VALIDATION_FAILED',
      { param: 'strategy', reason: 'strategy_not_allowed' },
    );
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    expect(started.status).toBe(200);
    expect(started.body.response.supported_first_factors.map((f: { strategy: string }) => f.strategy)).toEqual(['email_code']);
    const id = started.body.response.id as string;
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'reset_password_email_code' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'strategy_not_allowed' },
    );
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_code' } })).status).toBe(200);
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'email_code', code: await codeSentTo(h, email) },
    });
    expect(done.body.response.status).toBe('complete');
  });

  it('passwords only: no email code; at least one first factor must stay on', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: true,
        email_code: false,
        username: true,
        phone_code: false,
        email_link: false,
        email_link_same_browser: false,
      },
    });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email], password: PASSWORD });
    const b = browserOf(h, I);
    expect((await b.call('GET', '/v1/environment')).body.user_settings.first_factors).toEqual(['password', 'reset_password_email_code']);
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_code' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'strategy_not_allowed' },
    );
    expect((await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } })).body.response.status).toBe(
      'complete',
    );
    const none = settingsPatchSchema.safeParse({ sign_in_methods: { password: false, email_code: false, username: true } });
    expect(none.success).toBe(false);
    expect(none.error?.issues[0]).toMatchObject({ params: { reason: 'no_first_factor' } });
  });

  it('phone codes: a verified number signs in with an SMS code; an unknown one gets the same answers and no SMS', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: true,
        email_code: true,
        username: false,
        phone_code: true,
        email_link: false,
        email_link_same_browser: false,
      },
    });
    const phone = `+1415555${String(1000 + ++n).slice(-4)}`;
    const userId = await createTestUser(h, I, { email_address: [`methods${n}@example.com`], phone_number: [phone] });
    const b = browserOf(h, I);
    const env = (await b.call('GET', '/v1/environment')).body.user_settings;
    expect(env.identifiers).toEqual(['email_address', 'phone_number']);
    expect(env.first_factors).toEqual(['password', 'phone_code', 'email_code', 'reset_password_email_code']);

    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: phone } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const factors = started.body.response.supported_first_factors;
    expect(factors).toContainEqual({ strategy: 'phone_code', safe_identifier: phone });
    const id = started.body.response.id as string;
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'phone_code' } })).status).toBe(200);
    const sms = (await h.smsOutbox(phone))[0]!;
    const code = /(\d{6})/.exec(sms.body)![1]!;
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).body.response.first_factor_verification).toMatchObject({
      strategy: 'phone_code',
      status: 'unverified',
    });
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
        body: { strategy: 'phone_code', code: code === '000000' ? '111111' : '000000' },
      }),
      422,
      'CODE_INCORRECT',
    );
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body: { strategy: 'phone_code', code } });
    expect(done.body.response.status).toBe('complete');
    const sessionId = done.body.response.created_session_id as string;
    expect((await h.call('GET', `/v1/sessions/${sessionId}`, { key: I.secret })).body).toMatchObject({ user_id: userId, status: 'active' });

    // A number nobody has: the same answers, a code counted but never sent.
    const nobody = '+14155550999';
    const other = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: nobody } });
    expect(other.body.response.supported_first_factors).toEqual(
      factors.map((f: { strategy: string; safe_identifier?: string | null }) =>
        f.strategy === 'phone_code' ? { ...f, safe_identifier: nobody } : f,
      ),
    );
    expect(
      (await b.call('POST', `/v1/client/sign_ins/${other.body.response.id}/prepare_first_factor`, { body: { strategy: 'phone_code' } }))
        .status,
    ).toBe(200);
    expect(await h.smsOutbox(nobody)).toEqual([]);
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${other.body.response.id}/attempt_first_factor`, {
        body: { strategy: 'phone_code', code: '123456' },
      }),
      422,
      'CODE_INCORRECT',
    );

    // phone_code is for phone numbers; an email address signs in by its own factors.
    const byEmail = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: `methods${n}@example.com` } });
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${byEmail.body.response.id}/prepare_first_factor`, { body: { strategy: 'phone_code' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'strategy_not_allowed' },
    );
  });

  it('phone numbers are not identifiers while phone_code is off, and phone_code alone is a way to sign in', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: true,
        email_code: true,
        username: true,
        phone_code: false,
        email_link: false,
        email_link_same_browser: false,
      },
    });
    const b = browserOf(h, I);
    expectError(await b.call('POST', '/v1/client/sign_ins', { body: { identifier: '+14155550100' } }), 422, 'VALIDATION_FAILED', {
      param: 'identifier',
      reason: 'identifier_not_allowed',
    });
    expect(
      settingsPatchSchema.safeParse({
        sign_in_methods: {
          password: false,
          email_code: false,
          username: false,
          phone_code: true,
          email_link: false,
          email_link_same_browser: false,
        },
      }).success,
    ).toBe(true);
  });

  it('email links: the link completes the sign-in of the browser that asked, once; a tampered or reused link does nothing', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: false,
        email_code: false,
        username: false,
        phone_code: false,
        email_link: true,
        email_link_same_browser: false,
      },
    });
    const email = `methods${++n}@example.com`;
    const userId = await createTestUser(h, I, { email_address: [email] });
    const b = browserOf(h, I);
    expect((await b.call('GET', '/v1/environment')).body.user_settings.first_factors).toEqual(['email_link']);
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    expect(started.body.response.supported_first_factors).toEqual([{ strategy: 'email_link', safe_identifier: email }]);
    const id = started.body.response.id as string;
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_code' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'strategy_not_allowed' },
    );
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_link' } })).status).toBe(200);
    const sent = (await h.outbox(email))[0]!;
    expect(sent.template).toBe('sign_in_link');
    const link = new URL(String(sent.data.url));
    expect(link.pathname).toBe(`/fapi/${I.instanceId}/v1/verify`);
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).body.response).toMatchObject({
      status: 'needs_first_factor',
      first_factor_verification: { strategy: 'email_link', status: 'unverified' },
    });

    const tampered = await h.request(
      'GET',
      `${link.pathname}?token=${encodeURIComponent(link.searchParams.get('token')!.slice(0, -2) + 'xx')}`,
    );
    expect(tampered.status).toBe(303);
    expect(tampered.headers.get('location')).toBe(`http://localhost:3000/fapi/${I.instanceId}/sign-in/link-verified?status=failed`);

    // Opened in another browser (no cookie): that browser gets no session; the one that asked does.
    const clicked = await h.request('GET', `${link.pathname}${link.search}`);
    expect(clicked.status).toBe(303);
    expect(clicked.headers.get('location')).toMatch(/\/sign-in\/link-verified\?status=verified$/);
    expect(clicked.headers.get('set-cookie')).toBeNull();
    const polled = await b.call('GET', `/v1/client/sign_ins/${id}`);
    expect(polled.body.response.status).toBe('complete');
    const sessionId = polled.body.response.created_session_id as string;
    expect((await h.call('GET', `/v1/sessions/${sessionId}`, { key: I.secret })).body).toMatchObject({ user_id: userId, status: 'active' });
    expect((await b.call('GET', '/v1/client')).body.last_active_session_id).toBe(sessionId);

    const again = await h.request('GET', `${link.pathname}${link.search}`);
    expect(again.headers.get('location')).toMatch(/status=expired$/);

    // An address nobody has: the same answers, nothing sent.
    const nobody = `nobody${n}@example.com`;
    const other = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: nobody } });
    expect(
      (await b.call('POST', `/v1/client/sign_ins/${other.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_link' } }))
        .status,
    ).toBe(200);
    expect(await h.outbox(nobody)).toEqual([]);
  });

  it('the link’s email says when, from which network and on what device it was asked for', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: false,
        email_code: false,
        username: false,
        phone_code: false,
        email_link: true,
        email_link_same_browser: false,
      },
    });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email] });
    const b = browserOf(h, I);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } })).body.response.id as string;
    const firefox = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:131.0) Gecko/20100101 Firefox/131.0';
    const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, {
      body: { strategy: 'email_link' },
      headers: { 'user-agent': firefox },
      remoteAddress: '203.0.113.7',
    });
    expect(prepared.status).toBe(200);
    const sent = (await h.outbox(email))[0]!;
    const when = new Date(h.clock.now()).toUTCString();
    expect(sent.data).toMatchObject({ time: when, location: '203.0.113.0/24', device: 'Firefox on macOS' });
    expect(sent.text).toContain(`Asked for on ${when} from network 203.0.113.0/24, on Firefox on macOS.`);
    expect(sent.html).toContain('Firefox on macOS');
  });

  it('email_link_same_browser: the link completes only in the browser that asked; a victim’s click on an attacker’s link signs nobody in', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: false,
        email_code: false,
        username: false,
        phone_code: false,
        email_link: true,
        email_link_same_browser: true,
      },
    });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email] });
    // The attacker asks for a link to the victim's address…
    const attacker = browserOf(h, I);
    const id = (await attacker.call('POST', '/v1/client/sign_ins', { body: { identifier: email } })).body.response.id as string;
    expect(
      (await attacker.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_link' } })).status,
    ).toBe(200);
    const link = new URL(String((await h.outbox(email))[0]!.data.url));
    // …and the victim clicks it: in a browser with no cookie of ours, or with its own client.
    const victim = browserOf(h, I);
    await victim.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    for (const cookie of [undefined, victim.cookieHeader()]) {
      const clicked = await h.request('GET', `${link.pathname}${link.search}`, { headers: cookie ? { cookie } : {} });
      expect(clicked.status).toBe(303);
      expect(clicked.headers.get('location')).toBe(
        `http://localhost:3000/fapi/${I.instanceId}/sign-in/link-verified?status=client_mismatch`,
      );
    }
    expect((await attacker.call('GET', `/v1/client/sign_ins/${id}`)).body.response.status).toBe('needs_first_factor');
    expect((await attacker.call('GET', '/v1/client')).body.sessions).toEqual([]);
    expect((await victim.call('GET', '/v1/client')).body.sessions).toEqual([]);

    // The browser that asked opens its own link: signed in (the link was left as it was).
    const own = browserOf(h, I);
    const ownId = (await own.call('POST', '/v1/client/sign_ins', { body: { identifier: email } })).body.response.id as string;
    h.clock.advance(31_000);
    expect((await own.call('POST', `/v1/client/sign_ins/${ownId}/prepare_first_factor`, { body: { strategy: 'email_link' } })).status).toBe(
      200,
    );
    const ownLink = new URL(String((await h.outbox(email))[0]!.data.url));
    const opened = await own.call('GET', `/v1/verify${ownLink.search}`);
    expect(opened.headers.get('location')).toMatch(/status=verified$/);
    expect((await own.call('GET', `/v1/client/sign_ins/${ownId}`)).body.response.status).toBe('complete');
  });

  it('a user locked after asking for a link is not signed in by it', async () => {
    const I = await instanceWith(h, {
      sign_in_methods: {
        password: true,
        email_code: true,
        username: false,
        phone_code: false,
        email_link: true,
        email_link_same_browser: false,
      },
    });
    const email = `methods${++n}@example.com`;
    const userId = await createTestUser(h, I, { email_address: [email] });
    const b = browserOf(h, I);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } })).body.response.id as string;
    await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_link' } });
    expect((await h.call('POST', `/v1/users/${userId}/lock`, { key: I.secret })).status).toBe(200);
    const link = new URL(String((await h.outbox(email))[0]!.data.url));
    expect((await h.request('GET', `${link.pathname}${link.search}`)).headers.get('location')).toMatch(/status=failed$/);
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).body.response.status).toBe('needs_first_factor');
  });
});
