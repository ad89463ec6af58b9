import { describe, expect, it } from 'vitest';
import { browserOf } from '../testing/auth-flows';
import { eventsOf } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { activityColumns, USER_AGENT_MAX } from './activity';

const MAC_CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const PASSWORD = 'a long passphrase';

const h = sharedHarness({ env: { TRUST_PROXY: '1' } });
const A = sharedInstance(h);
let n = 0;

async function newUser() {
  const email = `device${++n}@example.com`;
  const res = await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email], password: PASSWORD } });
  expect(res.status).toBe(200);
  return { id: res.body.id as string, email };
}

/** A browser signing in with a password from this User-Agent and (forwarded) IP. */
async function signInFrom(email: string, userAgent: string, ip: string) {
  const b = browserOf(h, A);
  const headers = { 'user-agent': userAgent, 'x-forwarded-for': `${ip}, 10.0.0.1` };
  const res = await b.call('POST', '/v1/client/sign_ins', { headers, body: { identifier: email, password: PASSWORD } });
  expect(res.status).toBe(200);
  return { b, sessionId: res.body.response.created_session_id as string };
}

describe('the latest activity of a session', () => {
  it('records the device and IP of a FAPI sign-in, shown on BAPI, /v1/me/sessions and session.created', async () => {
    const u = await newUser();
    const { b, sessionId } = await signInFrom(u.email, MAC_CHROME, '203.0.113.7');
    const expected = {
      ip_address: '203.0.113.7',
      browser_name: 'Chrome',
      browser_version: '131',
      device_type: 'desktop',
      os_name: 'macOS',
      is_mobile: false,
    };

    const bapi = await h.call('GET', `/v1/sessions/${sessionId}`, { key: A.secret });
    expect(bapi.status).toBe(200);
    expect(bapi.body.latest_activity).toEqual(expected);
    const listed = await h.call('GET', `/v1/users/${u.id}/sessions`, { key: A.secret });
    expect(listed.body.data[0].latest_activity).toEqual(expected);

    const mine = await b.call('GET', '/v1/me/sessions');
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual([expect.objectContaining({ id: sessionId, current: true, latest_activity: expected })]);

    const created = (await eventsOf(h, A.instanceId, 'session.created')).find((e) => e.data.id === sessionId);
    expect(created?.data.latest_activity).toEqual(expected);
  });

  it('tells a phone from a laptop in the user’s device list', async () => {
    const u = await newUser();
    const laptop = await signInFrom(u.email, MAC_CHROME, '203.0.113.7');
    const phone = await signInFrom(u.email, IPHONE_SAFARI, '198.51.100.20');
    const mine = await laptop.b.call('GET', '/v1/me/sessions');
    const byId = Object.fromEntries(mine.body.data.map((s: { id: string }) => [s.id, s]));
    expect(byId[phone.sessionId].latest_activity).toEqual({
      ip_address: '198.51.100.20',
      browser_name: 'Safari',
      browser_version: '18',
      device_type: 'mobile',
      os_name: 'iOS',
      is_mobile: true,
    });
    expect(byId[laptop.sessionId].latest_activity.device_type).toBe('desktop');
  });

  it('updates the activity on a touch from elsewhere, and keeps it when the touch tells nothing', async () => {
    const u = await newUser();
    const { b, sessionId } = await signInFrom(u.email, MAC_CHROME, '203.0.113.7');
    const touched = await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, {
      headers: { 'user-agent': IPHONE_SAFARI, 'x-forwarded-for': '198.51.100.9' },
      body: {},
    });
    expect(touched.status).toBe(200);
    expect(touched.body.response.latest_activity).toMatchObject({
      ip_address: '198.51.100.9',
      browser_name: 'Safari',
      os_name: 'iOS',
      is_mobile: true,
    });
    // No User-Agent nor forwarded IP (an in-process request has no socket address): kept.
    const blank = await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, { body: {} });
    expect(blank.status).toBe(200);
    expect(blank.body.response.latest_activity).toMatchObject({ ip_address: '198.51.100.9', browser_name: 'Safari' });
  });

  it('is null for a headless session minted on BAPI', async () => {
    const u = await newUser();
    const minted = await h.call('POST', '/v1/sessions', {
      key: A.secret,
      headers: { 'user-agent': MAC_CHROME, 'x-forwarded-for': '203.0.113.7' },
      body: { user_id: u.id },
    });
    expect(minted.status).toBe(200);
    expect(minted.body.latest_activity).toBeNull();
    expect((await h.call('GET', `/v1/sessions/${minted.body.id}`, { key: A.secret })).body.latest_activity).toBeNull();
  });
});

describe('activityColumns', () => {
  it('truncates a long User-Agent and leaves unknown parts null', () => {
    const cols = activityColumns({ ip: null, userAgent: `${'x'.repeat(600)}` });
    expect(cols.userAgent).toHaveLength(USER_AGENT_MAX);
    expect(cols).toMatchObject({ ipAddress: null, browserName: null, osName: null, deviceType: 'unknown', isMobile: false });
    expect(activityColumns({ ip: '192.0.2.1', userAgent: null })).toMatchObject({
      ipAddress: '192.0.2.1',
      userAgent: null,
      deviceType: null,
      isMobile: null,
    });
  });
});
