import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { sendEmail } from './mailer';
import { sendSms } from '../sms/send';
import type { EmailView, SmsView } from './messages';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const test = sharedInstance(h);
const live = sharedInstance(h, { environment: 'live' });
const sent: EmailView[] = [];
let sms: SmsView[] = [];
let liveSms: SmsView;

beforeAll(async () => {
  const d = h.runtime.deps;
  const send = async (to: string, template: 'verification_code' | 'sign_in_link', userId: string | null = null) => {
    h.clock.advance(1_000);
    const common = { instanceId: test.instanceId, to, userId };
    sent.push(
      template === 'verification_code'
        ? await sendEmail(d, { ...common, template, data: { code: String(100000 + sent.length) } })
        : await sendEmail(d, { ...common, template, data: { url: 'https://app.test/verify?token=t' } }),
    );
  };
  await send('Ada@Example.com', 'verification_code', 'user_a');
  await send('bob@example.com', 'verification_code');
  await send('ada@example.com', 'sign_in_link', 'user_a');
  await send('cy@example.com', 'verification_code', 'user_c');
  await sendEmail(d, { instanceId: live.instanceId, to: 'ada@example.com', template: 'verification_code', data: { code: '999999' } });
  sms = [
    await sendSms(d, {
      instanceId: test.instanceId,
      to: '+14155550100',
      template: 'verification_code',
      data: { code: '111111' },
      userId: 'user_a',
    }),
    await sendSms(d, { instanceId: test.instanceId, to: '+14155550199', template: 'verification_code', data: { code: '222222' } }),
  ];
  liveSms = await sendSms(d, {
    instanceId: live.instanceId,
    to: '+14155550100',
    template: 'verification_code',
    data: { code: '999999' },
    userId: 'user_l',
  });
});

const get = (path: string, key = test.secret) => h.call('GET', path, { key });
const ids = (body: { data: { id: string }[] }) => body.data.map((e) => e.id);
const newestFirst = () => [...sent].reverse().map((e) => e.id);

describe('GET /v1/emails', () => {
  it('lists the instance’s emails newest first, as sent', async () => {
    const res = await get('/v1/emails');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(ids(res.body)).toEqual(newestFirst());
    expect(res.body.data[3]).toEqual(sent[0]);
    expect(res.body.data[3].data.code).toBe('100000');
  });

  it('pages with a cursor', async () => {
    const first = await get('/v1/emails?limit=3');
    expect(first.body).toMatchObject({ has_more: true, next_cursor: newestFirst()[2] });
    const second = await get(`/v1/emails?limit=3&starting_after=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...ids(first.body), ...ids(second.body)]).toEqual(newestFirst());
  });

  it('filters by recipient (any case), user_id and template', async () => {
    expect(ids((await get('/v1/emails?to=ADA@example.com')).body)).toEqual([sent[2]!.id, sent[0]!.id]);
    expect(ids((await get('/v1/emails?user_id=user_a')).body)).toEqual([sent[2]!.id, sent[0]!.id]);
    expect(ids((await get('/v1/emails?template=sign_in_link')).body)).toEqual([sent[2]!.id]);
    expect(ids((await get('/v1/emails?to=ada@example.com&template=verification_code')).body)).toEqual([sent[0]!.id]);
    expect(ids((await get('/v1/emails?to=nobody@example.com')).body)).toEqual([]);
  });

  it.each([
    ['to=not-an-address', 'to'],
    ['template=welcome', 'template'],
    ['limit=0', 'limit'],
    ['colour=blue', 'colour'],
  ])('answers 422 for %s', async (query, param) => {
    const res = await get(`/v1/emails?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param } });
  });

  it('gets one email, and 404 for another instance’s or an unknown id', async () => {
    const one = await get(`/v1/emails/${sent[1]!.id}`);
    expect(one).toMatchObject({ status: 200, body: sent[1] });
    const other = await h.createInstance();
    expect((await get(`/v1/emails/${sent[1]!.id}`, other.secret)).body.errors[0].code).toBe('NOT_FOUND');
    expect((await get('/v1/emails/email_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await get('/v1/emails', other.secret)).body.data).toEqual([]);
  });

  it('answers 403 FORBIDDEN on a live instance: codes are secrets in production', async () => {
    for (const path of ['/v1/emails', `/v1/emails/${sent[0]!.id}`]) {
      const res = await get(path, live.secret);
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/only be read on test instances/),
        meta: { reason: 'live_instance' },
      });
      expect(JSON.stringify(res.body)).not.toContain('999999');
    }
  });

  it('requires emails:read (write implies read), a key, and no other scope will do', async () => {
    const users = await h.createKey(test.instanceId, 'users:read,sms:read');
    const res = await get('/v1/emails', users.secret);
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'emails:read' } });
    expect((await get(`/v1/emails/${sent[0]!.id}`, users.secret)).body.errors[0].meta.required_scope).toBe('emails:read');
    expect((await get('/v1/emails', (await h.createKey(test.instanceId, 'emails:read')).secret)).status).toBe(200);
    expect((await get('/v1/emails', (await h.createKey(test.instanceId, 'emails:write')).secret)).status).toBe(200);
    expect((await h.call('GET', '/v1/emails')).body.errors[0].code).toBe('UNAUTHENTICATED');
    // The scope check comes before the environment check.
    const liveKey = await h.createKey(live.instanceId, 'users:read');
    expect((await get('/v1/emails', liveKey.secret)).body.errors[0].code).toBe('SCOPE_MISSING');
  });
});

describe('GET /v1/sms', () => {
  it('lists and gets SMS on a test instance, with filters', async () => {
    const res = await get('/v1/sms');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [sms[1], sms[0]], has_more: false, next_cursor: null });
    expect(ids((await get('/v1/sms?to=%2B14155550100')).body)).toEqual([sms[0]!.id]);
    expect(ids((await get('/v1/sms?user_id=user_a&template=verification_code')).body)).toEqual([sms[0]!.id]);
    expect(await get(`/v1/sms/${sms[1]!.id}`)).toMatchObject({ status: 200, body: sms[1] });
    expect((await get('/v1/sms?to=555')).status).toBe(422);
    expect((await get('/v1/sms/sms_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
  });

  it('on a live instance, lists and gets SMS with their delivery status but never their text or data (the code)', async () => {
    const redacted = { ...liveSms, body: null, data: {}, body_redacted: true };
    const list = await get('/v1/sms', live.secret);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [redacted], has_more: false, next_cursor: null });
    expect(list.body.data[0]).toMatchObject({
      status: 'delivered',
      delivered_by: 'outbox',
      to: '+14155550100',
      template: 'verification_code',
      attempts: 1,
      user_id: 'user_l',
    });
    const one = await get(`/v1/sms/${liveSms.id}`, live.secret);
    expect(one).toMatchObject({ status: 200, body: redacted });
    expect(ids((await get('/v1/sms?user_id=user_l', live.secret)).body)).toEqual([liveSms.id]);
    for (const res of [list, one]) expect(JSON.stringify(res.body)).not.toContain('999999');
    // A test instance's SMS still show their text; another instance's stay out of reach.
    expect((await get(`/v1/sms/${sms[0]!.id}`)).body).toMatchObject({ body: expect.stringContaining('111111'), body_redacted: false });
    expect((await get(`/v1/sms/${sms[0]!.id}`, live.secret)).status).toBe(404);
  });

  it('requires sms:read', async () => {
    const k = await h.createKey(test.instanceId, 'emails:read');
    const res = await get('/v1/sms', k.secret);
    expect(res.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sms:read' } });
    expect((await get('/v1/sms', (await h.createKey(test.instanceId, 'sms:read')).secret)).status).toBe(200);
  });
});
