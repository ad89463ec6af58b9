import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';
import { retryQueuedEmails, RETRY_DELAYS_MS, sendEmail } from './mailer';

/** A real SMTP server on a random localhost port, recording what it receives. */
interface Received {
  from: string;
  to: string[];
  raw: string;
}
const received: Received[] = [];
const control = { rejectRcpt: 0, authFails: false };
const SMTP_PASSWORD = 'smtp-Pa55word-xyz';

const server = new SMTPServer({
  disabledCommands: ['STARTTLS'],
  authOptional: true,
  allowInsecureAuth: true,
  logger: false,
  // Closing waits for open client connections; a test server need not.
  closeTimeout: 200,
  onAuth(auth, _session, cb) {
    if (control.authFails || auth.password !== SMTP_PASSWORD) return cb(new Error('Authentication failed'));
    cb(null, { user: auth.username });
  },
  onRcptTo(_address, _session, cb) {
    if (control.rejectRcpt > 0) {
      control.rejectRcpt--;
      const err = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 });
      return cb(err);
    }
    cb();
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      cb();
    });
  },
});

let port: number;
let h: TestHarness;
let instanceId: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
  // No injected mailer: the runtime builds its nodemailer transport from SMTP_URL.
  h = await createHarness({
    env: { SMTP_URL: `smtp://latchkey:${SMTP_PASSWORD}@127.0.0.1:${port}`, EMAIL_FROM: 'Acme Auth <auth@acme.test>' },
  });
  ({ instanceId } = await h.createInstance());
});
afterAll(async () => {
  await h.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
  control.rejectRcpt = 0;
  control.authFails = false;
});

/** The headers and the decoded text/plain part of a raw message. */
function parseMessage(raw: string) {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  const body = rest.join('\n\n');
  const textPart = /Content-Type: text\/plain[^]*?\r?\n\r?\n([^]*?)\r?\n--/i.exec(body)?.[1] ?? '';
  const qp = /Content-Type: text\/plain[^]*?Content-Transfer-Encoding: quoted-printable/i.test(body);
  const text = qp
    ? Buffer.from(
        textPart.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8')
    : textPart;
  return { headers, text };
}

describe('SMTP delivery through a real server', () => {
  it('sends the rendered email: subject, recipient, sender and a text part with the code', async () => {
    const email = await sendEmail(h.runtime.deps, {
      instanceId,
      to: 'ada@example.com',
      template: 'verification_code',
      data: { code: '482913', expires_in_minutes: 10 },
    });
    expect(email).toMatchObject({ status: 'delivered', delivered_by: 'smtp', attempts: 1, from: 'Acme Auth <auth@acme.test>' });
    expect(received).toHaveLength(1);
    const msg = received[0]!;
    expect(msg).toMatchObject({ from: 'auth@acme.test', to: ['ada@example.com'] });
    const { headers, text } = parseMessage(msg.raw);
    expect(headers.get('subject')).toBe('482913 is your Test verification code');
    expect(headers.get('to')).toBe('ada@example.com');
    expect(headers.get('from')).toBe('Acme Auth <auth@acme.test>');
    expect(headers.get('x-entity-ref-id')).toBe(email.id);
    expect(headers.get('content-type')).toMatch(/multipart\/alternative/);
    expect(text).toContain('482913');
    expect(text).toContain('The code expires in 10 minutes.');
    expect(msg.raw).toMatch(/Content-Type: text\/html/);
  });

  it('marks a refused send failed with the server’s answer, then delivers it on retry', async () => {
    control.rejectRcpt = 1;
    const email = await sendEmail(h.runtime.deps, {
      instanceId,
      to: 'bob@example.com',
      template: 'sign_in_link',
      data: { url: 'https://app.test/verify?t=1' },
    });
    expect(email).toMatchObject({ status: 'failed', delivered_by: 'smtp', attempts: 1 });
    expect(email.error).toMatch(/451/);
    expect(received).toHaveLength(0);

    h.clock.advance(RETRY_DELAYS_MS[0]);
    expect(await retryQueuedEmails(h.runtime.deps)).toEqual({ attempted: 1, delivered: 1, failed: 0 });
    expect(received.map((r) => r.to)).toEqual([['bob@example.com']]);
    expect(parseMessage(received[0]!.raw).headers.get('subject')).toBe('Sign in to Test');
    expect((await h.outbox('bob@example.com'))[0]).toMatchObject({ status: 'delivered', error: null, attempts: 2 });
  });

  it('records an authentication failure without the password', async () => {
    control.authFails = true;
    const email = await sendEmail(h.runtime.deps, { instanceId, to: 'cy@example.com', template: 'verification_code', data: { code: '1' } });
    expect(email.status).toBe('failed');
    expect(email.error).toMatch(/EAUTH|535|Authentication/);
    expect(email.error).not.toContain(SMTP_PASSWORD);
  });
});
