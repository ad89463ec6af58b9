import { describe, expect, it } from 'vitest';
import type { OutgoingEmail } from '../infra/mail-transport';
import { browserOf } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';

/** Codes through a mail transport (SMTP in production): sent after the commit, never holding up the answer. */
const sent: OutgoingEmail[] = [];
let release: () => void = () => {};
const h = sharedHarness({
  mailer: {
    // A slow server: each send waits until the test releases it.
    send: (m) =>
      new Promise<void>((resolve) => {
        release = () => {
          release = () => {};
          sent.push(m);
          resolve();
        };
      }),
  },
});
const A = sharedInstance(h);

async function until(cond: () => Promise<boolean>) {
  for (let i = 0; i < 100; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out');
}

describe('verification codes through a mail transport', () => {
  it('answers before the slow send finishes, then delivers the code; the email row follows', async () => {
    const b = browserOf(h, A);
    const address = 'smtp-user@example.com';
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: address, password: 'a long passphrase' } })).body
      .response.id;
    const prepared = await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    expect(prepared.status).toBe(200);
    expect(sent).toHaveLength(0);
    const [queued] = await h.outbox(address);
    expect(queued).toMatchObject({ template: 'verification_code', delivered_by: 'smtp' });

    await until(async () => {
      release();
      return sent.length === 1;
    });
    expect(sent[0]!.to).toBe(address);
    const code = (await h.outbox(address))[0]!.data.code as string;
    expect(sent[0]!.text).toContain(code);
    await until(async () => (await h.outbox(address))[0]!.status === 'delivered');

    const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
    expect(done.status).toBe(200);
  });

  it('sends nothing for an identifier that names nobody', async () => {
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ghost@example.com' } })).body.response.id;
    const before = sent.length;
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_code' } })).status).toBe(200);
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(sent.length).toBe(before);
    expect(await h.outbox('ghost@example.com')).toEqual([]);
  });
});
