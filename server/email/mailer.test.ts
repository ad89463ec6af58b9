import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../config';
import { emails, events, instances, smsMessages } from '../db/schema';
import { AppError } from '../http/errors';
import { sharedHarness } from '../testing/harness';
import { logSink } from '../testing/log-sink';
import { deliverEmail, retryQueuedEmails, RETRY_DELAYS_MS, sendEmail } from './mailer';
import { sendSms } from '../sms/send';
import type { Mailer, OutgoingEmail } from '../infra/mail-transport';
import { raceTest } from '../testing/races';

// Lets a test make the event write fail, to prove the email row goes with it.
const failEvents = vi.hoisted(() => ({ on: false }));
vi.mock('../events/events', async (importOriginal) => {
  const real = await importOriginal<typeof import('../events/events')>();
  return {
    ...real,
    emitEvent: async (...args: Parameters<typeof real.emitEvent>) => {
      if (failEvents.on) throw new Error('event store unavailable');
      return real.emitEvent(...args);
    },
  };
});

/** A transport that records what it sends and fails while told to. */
class FakeMailer implements Mailer {
  sent: OutgoingEmail[] = [];
  failWith: Error | null = null;
  async send(m: OutgoingEmail) {
    if (this.failWith) throw this.failWith;
    this.sent.push(m);
  }
}

const { lines: logLines, sink } = logSink();

const SMTP_PASSWORD = 'Sup3r-s3cret-pw';
const h = sharedHarness({
  env: { LOG_LEVEL: 'debug', SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:1` },
  logDestination: sink,
  mailer: null,
});
let instanceId: string;
beforeAll(async () => {
  ({ instanceId } = await h.createInstance());
});
beforeEach(() => {
  h.runtime.deps.mailer = null;
  failEvents.on = false;
});

const deps = () => h.runtime.deps;
let n = 0;
const address = () => `person${++n}@example.com`;
const emailRow = async (id: string) => (await deps().db.select().from(emails).where(eq(emails.id, id)))[0]!;
const eventsFor = async (type: string) =>
  (
    await deps()
      .db.select()
      .from(events)
      .where(and(eq(events.instanceId, instanceId), eq(events.type, type)))
  ).map((e) => e.data);

describe('sendEmail', () => {
  it('keeps the email in the dev outbox without SMTP, and emits email.created with the full email', async () => {
    const to = address();
    const email = await sendEmail(deps(), {
      instanceId,
      to,
      template: 'verification_code',
      data: { code: '424242', expires_in_minutes: 10 },
      userId: 'user_x',
    });
    expect(email).toMatchObject({
      object: 'email',
      id: expect.stringMatching(/^email_[0-9A-HJKMNP-TV-Z]{26}$/),
      user_id: 'user_x',
      to,
      from: 'Latchkey <no-reply@localhost>',
      template: 'verification_code',
      locale: 'en',
      subject: '424242 is your Test verification code',
      status: 'delivered',
      delivered_by: 'outbox',
      error: null,
      data: { code: '424242', app_name: 'Test', expires_in_minutes: 10 },
      created_at: h.clock.now(),
    });
    expect(email.text).toContain('424242');
    expect(email.html).toContain('424242');
    expect((await h.outbox(to))[0]).toEqual(email);
    const created = (await eventsFor('email.created')).filter((d) => d.id === email.id);
    expect(created).toEqual([email]);
  });

  it('paints the buttons in the branding’s primary colour and sends from the branding’s sender; else the default dark and EMAIL_FROM', async () => {
    const { instanceId: branded } = await h.createInstance();
    await deps()
      .db.update(instances)
      .set({
        settings: {
          branding: { application_name: null, primary_color: '#0f766e', support_email: null, email_from: 'Teal Shop <hello@teal.example>' },
        },
      })
      .where(eq(instances.id, branded));
    const link = { url: 'https://app.example.com/sign-in?token=t' };
    const mailer = new FakeMailer();
    h.runtime.deps.mailer = mailer;
    const email = await sendEmail(deps(), { instanceId: branded, to: address(), template: 'sign_in_link', data: link });
    expect(email.from).toBe('Teal Shop <hello@teal.example>');
    // The button: the branding's colour over the default.
    expect(email.html).toContain('.lk-button td, .lk-button a { background: #0f766e !important; }');
    // The SMTP message carries the sender.
    await vi.waitFor(() => expect(mailer.sent.map((m) => m.from)).toContain('Teal Shop <hello@teal.example>'));
    h.runtime.deps.mailer = null;

    const plain = await sendEmail(deps(), { instanceId, to: address(), template: 'sign_in_link', data: link });
    expect(plain.from).toBe('Latchkey <no-reply@localhost>');
    expect(plain.html).toContain('#18181b');
    expect(plain.html).not.toContain('#0f766e');
    expect(plain.html).not.toContain('.lk-button td');
  });

  it('writes the email and its event in one transaction: neither without the other', async () => {
    const to = address();
    failEvents.on = true;
    await expect(sendEmail(deps(), { instanceId, to, template: 'verification_code', data: { code: '111111' } })).rejects.toThrow(
      'event store unavailable',
    );
    failEvents.on = false;
    expect(await h.outbox(to)).toEqual([]);

    // Inside a caller's transaction that rolls back, both go too.
    await deps()
      .db.transaction(async (tx) => {
        const email = await sendEmail({ ...deps(), db: tx }, { instanceId, to, template: 'verification_code', data: { code: '222222' } });
        const written = await tx
          .select()
          .from(events)
          .where(and(eq(events.type, 'email.created'), sql`${events.data}->>'id' = ${email.id}`));
        expect(written.map((e) => e.data)).toEqual([email]);
        expect((await tx.select().from(emails).where(eq(emails.id, email.id))).length).toBe(1);
        throw new Error('rollback');
      })
      .catch((e: Error) => expect(e.message).toBe('rollback'));
    expect(await h.outbox(to)).toEqual([]);
    expect((await eventsFor('email.created')).filter((d) => d.to === to)).toEqual([]);
  });

  it('uses the caller’s app name and locale fallback, and refuses a bad address', async () => {
    const to = address();
    const email = await sendEmail(deps(), {
      instanceId,
      to,
      template: 'invitation',
      data: { url: 'https://app.test/i', inviter_name: 'Ada', app_name: 'Orbit' },
      locale: 'de-AT',
    });
    expect(email).toMatchObject({ locale: 'de', subject: 'Ada hat Sie zu Orbit eingeladen' });
    const english = await sendEmail(deps(), {
      instanceId,
      to,
      template: 'invitation',
      data: { url: 'https://app.test/i', app_name: 'Orbit' },
      locale: 'es-MX',
    });
    expect(english).toMatchObject({ locale: 'en', subject: 'You’re invited to Orbit' });
    const err = await sendEmail(deps(), {
      instanceId,
      to: 'not an address\r\nBcc: x@y.z',
      template: 'verification_code',
      data: { code: '1' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'to', reason: 'invalid' } });
  });

  it('sends through the mailer after commit and records the delivery', async () => {
    const mailer = new FakeMailer();
    h.runtime.deps.mailer = mailer;
    const to = address();
    const email = await sendEmail(deps(), { instanceId, to, template: 'password_reset_code', data: { code: '777777' } });
    expect(email).toMatchObject({ status: 'delivered', delivered_by: 'smtp', attempts: 1, error: null });
    expect(mailer.sent).toEqual([
      {
        from: 'Latchkey <no-reply@localhost>',
        to,
        subject: '777777 is your Test password reset code',
        html: email.html,
        text: email.text,
        headers: { 'X-Entity-Ref-ID': email.id },
      },
    ]);
    // email.created carries the email as written: queued for SMTP.
    expect((await eventsFor('email.created')).find((d) => d.id === email.id)).toMatchObject({ status: 'queued', delivered_by: 'smtp' });
  });

  it('marks a failed send failed, without secrets in the error or the logs, and retries it later', async () => {
    const mailer = new FakeMailer();
    h.runtime.deps.mailer = mailer;
    const err = Object.assign(new Error(`Invalid login for mailer:${SMTP_PASSWORD} (token sk_test_abcdefghijklmnop)`), {
      code: 'EAUTH',
      responseCode: 535,
    });
    mailer.failWith = err;
    logLines.length = 0;
    const to = address();
    const email = await sendEmail(deps(), { instanceId, to, template: 'verification_code', data: { code: '313131' } });
    expect(email).toMatchObject({ status: 'failed', delivered_by: 'smtp', attempts: 1 });
    expect(email.error).toMatch(/^EAUTH: Invalid login/);
    expect(email.error).not.toContain(SMTP_PASSWORD);
    expect(email.error).not.toContain('abcdefghijklmnop');
    const logs = logLines.join('');
    expect(logs).toContain('email delivery failed');
    expect(logs).not.toContain(SMTP_PASSWORD);
    expect(logs).not.toContain('313131');
    expect((await emailRow(email.id)).nextAttemptAt).toBe(h.clock.now() + RETRY_DELAYS_MS[0]);

    // Not due yet.
    mailer.failWith = null;
    h.clock.advance(RETRY_DELAYS_MS[0] - 1);
    expect(await retryQueuedEmails(deps())).toEqual({ attempted: 0, delivered: 0, failed: 0 });
    h.clock.advance(1);
    expect(await retryQueuedEmails(deps())).toEqual({ attempted: 1, delivered: 1, failed: 0 });
    expect(mailer.sent.map((m) => m.to)).toEqual([to]);
    expect(await emailRow(email.id)).toMatchObject({ status: 'delivered', error: null, attempts: 2, nextAttemptAt: null });
    expect(await retryQueuedEmails(deps())).toEqual({ attempted: 0, delivered: 0, failed: 0 });
  });

  it('backs off between retries and gives up after the last', async () => {
    const mailer = new FakeMailer();
    mailer.failWith = new Error('connect ECONNREFUSED 127.0.0.1:1');
    h.runtime.deps.mailer = mailer;
    const email = await sendEmail(deps(), { instanceId, to: address(), template: 'verification_code', data: { code: '1' } });
    for (const delay of RETRY_DELAYS_MS) {
      h.clock.advance(delay);
      const r = await retryQueuedEmails(deps());
      expect(r.failed).toBeGreaterThanOrEqual(1);
    }
    const row = await emailRow(email.id);
    expect(row).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1, nextAttemptAt: null });
    h.clock.advance(24 * 60 * 60_000);
    expect((await retryQueuedEmails(deps())).attempted).toBe(0);
    // An explicit redelivery still works.
    mailer.failWith = null;
    expect(await deliverEmail(deps(), email.id)).toMatchObject({ status: 'delivered', attempts: RETRY_DELAYS_MS.length + 2 });
  });

  it('in a caller’s transaction, queues without sending; deliverEmail or the sweep sends it after commit', async () => {
    const mailer = new FakeMailer();
    h.runtime.deps.mailer = mailer;
    const [a, b] = [address(), address()];
    const queued = await deps().db.transaction(async (tx) => [
      await sendEmail({ ...deps(), db: tx }, { instanceId, to: a, template: 'verification_code', data: { code: '1' } }),
      await sendEmail({ ...deps(), db: tx }, { instanceId, to: b, template: 'verification_code', data: { code: '2' } }),
    ]);
    expect(queued.map((e) => e.status)).toEqual(['queued', 'queued']);
    expect(mailer.sent).toEqual([]);
    expect(await deliverEmail(deps(), queued[0]!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await deliverEmail(deps(), queued[0]!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(mailer.sent.map((m) => m.to)).toEqual([a]);

    // The other one waits for the sweep: queued emails older than a minute.
    h.clock.advance(59_000);
    expect((await retryQueuedEmails(deps())).attempted).toBe(0);
    h.clock.advance(1_000);
    expect(await retryQueuedEmails(deps())).toMatchObject({ attempted: 1, delivered: 1 });
    expect(mailer.sent.map((m) => m.to)).toEqual([a, b]);
  });

  raceTest('delivers a retried email once when two sweeps race', async () => {
    const mailer = new FakeMailer();
    mailer.failWith = new Error('451 try later');
    h.runtime.deps.mailer = mailer;
    const to = address();
    await sendEmail(deps(), { instanceId, to, template: 'verification_code', data: { code: '5' } });
    mailer.failWith = null;
    h.clock.advance(RETRY_DELAYS_MS[0]);
    const results = await Promise.all([retryQueuedEmails(deps()), retryQueuedEmails(deps())]);
    expect(results.reduce((s, r) => s + r.delivered, 0)).toBe(1);
    expect(mailer.sent.filter((m) => m.to === to)).toHaveLength(1);
  });

  it('delivers to the outbox what was queued for SMTP when SMTP is no longer configured', async () => {
    const mailer = new FakeMailer();
    mailer.failWith = new Error('down');
    h.runtime.deps.mailer = mailer;
    const email = await sendEmail(deps(), { instanceId, to: address(), template: 'verification_code', data: { code: '6' } });
    h.runtime.deps.mailer = null;
    expect(await deliverEmail(deps(), email.id)).toMatchObject({ status: 'delivered', delivered_by: 'outbox', error: null });
    expect(await deliverEmail(deps(), 'email_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeNull();
  });
});

describe('sendSms', () => {
  it('records the SMS in the dev outbox and emits sms.created in the same transaction', async () => {
    const sms = await sendSms(deps(), {
      instanceId,
      to: '+14155550100',
      template: 'verification_code',
      data: { code: '654321' },
      userId: 'user_y',
    });
    expect(sms).toEqual({
      object: 'sms',
      id: expect.stringMatching(/^sms_[0-9A-HJKMNP-TV-Z]{26}$/),
      user_id: 'user_y',
      to: '+14155550100',
      from: null,
      template: 'verification_code',
      locale: 'en',
      body: '654321 is your Test verification code. Don’t share it.',
      data: { code: '654321', app_name: 'Test' },
      body_redacted: false,
      status: 'delivered',
      delivered_by: 'outbox',
      error: null,
      error_code: null,
      provider_message_id: null,
      attempts: 1,
      next_attempt_at: null,
      created_at: h.clock.now(),
      updated_at: h.clock.now(),
    });
    expect((await eventsFor('sms.created')).find((d) => d.id === sms.id)).toEqual(sms);
    expect((await h.smsOutbox('+14155550100'))[0]).toEqual(sms);

    failEvents.on = true;
    await expect(sendSms(deps(), { instanceId, to: '+14155550101', template: 'verification_code', data: { code: '1' } })).rejects.toThrow();
    failEvents.on = false;
    expect(await deps().db.select().from(smsMessages).where(eq(smsMessages.to, '+14155550101'))).toEqual([]);
  });

  it('refuses a number that is not E.164', async () => {
    await expect(sendSms(deps(), { instanceId, to: '555-0100', template: 'verification_code', data: { code: '1' } })).rejects.toMatchObject(
      {
        code: 'VALIDATION_FAILED',
        meta: { param: 'to' },
      },
    );
  });
});

describe('configuration', () => {
  it('defaults EMAIL_FROM and leaves SMTP off', () => {
    const c = loadConfig({});
    expect(c.EMAIL_FROM).toBe('Latchkey <no-reply@localhost>');
    expect(c.SMTP_URL).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@smtp.example.com:465', EMAIL_FROM: 'no-reply@acme.test' })).toMatchObject({
      SMTP_URL: 'smtps://u:p@smtp.example.com:465',
      EMAIL_FROM: 'no-reply@acme.test',
    });
  });

  it.each([
    ['SMTP_URL', 'http://smtp.example.com'],
    ['SMTP_URL', 'smtp://'],
    ['EMAIL_FROM', 'not an address'],
    ['EMAIL_FROM', 'Acme <a@b.c>\r\nBcc: x@y.z'],
  ])('refuses %s=%j with a message naming the variable, not the value', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
    expect(() => loadConfig({ SMTP_URL: 'ftp://u:hidden-pw@x' })).not.toThrow(/hidden-pw/);
  });
});
