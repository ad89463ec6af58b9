import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '../email/mailer';
import { sendSms } from '../sms/send';
import { beginTotpEnrollment } from '../users/mfa';
import { createUser } from '../users/users';
import { systemContext } from '../http/actor';
import { instanceContext } from './instances';
import { claimedConsole, consoleInstance, invitedViewer } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createHarness, type TestHarness } from '../testing/harness';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString('base64');

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
let instanceId: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  ({ id: instanceId, base } = await consoleInstance(owner, 'Acme Shop'));
});
afterAll(() => h.close());

const environment = async () => (await h.call('GET', `/fapi/${instanceId}/v1/environment`)).body.branding;

describe('instance branding', () => {
  it('sets the primary colour (WCAG AA against white) and the support address', async () => {
    expectError(
      await owner.b.dash('PATCH', `${base}/settings`, { body: { branding: { primary_color: '#ffff00', support_email: null } } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'low_contrast' },
    );
    expectError(
      await owner.b.dash('PATCH', `${base}/settings`, { body: { branding: { primary_color: 'blue', support_email: null } } }),
      422,
      'VALIDATION_FAILED',
    );
    const ok = await owner.b.dash('PATCH', `${base}/settings`, {
      body: { branding: { primary_color: '#0F766E', support_email: 'help@acme.test' } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await environment()).toEqual({
      application_name: 'Acme Shop',
      logo_url: null,
      primary_color: '#0f766e',
      support_email: 'help@acme.test',
    });
  });

  it('uploads a logo checked by its bytes and serves it with immutable caching', async () => {
    expectError(
      await owner.b.dash('PUT', `${base}/branding/logo`, { body: { content_type: 'image/png', data: JPEG_HEAD } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'type_mismatch' },
    );
    expectError(
      await owner.b.dash('PUT', `${base}/branding/logo`, {
        body: { content_type: 'image/png', data: Buffer.from('<script>alert(1)</script>').toString('base64') },
      }),
      422,
      'VALIDATION_FAILED',
      { reason: 'type_mismatch' },
    );
    const big = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(600 * 1024)]).toString('base64');
    expect(
      (await owner.b.dash('PUT', `${base}/branding/logo`, { body: { content_type: 'image/png', data: big } })).status,
    ).toBeGreaterThanOrEqual(413);
    expectError(
      await owner.b.dash('PUT', `${base}/branding/logo`, { body: { content_type: 'image/gif', data: PNG } }),
      422,
      'VALIDATION_FAILED',
    );

    const put = await owner.b.dash('PUT', `${base}/branding/logo`, { body: { content_type: 'image/png', data: PNG } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const { logo_url } = await environment();
    expect(logo_url).toBe(`http://localhost:3000/fapi/${instanceId}/v1/branding/logo/${put.body.version}`);

    const image = await h.request('GET', `/fapi/${instanceId}/v1/branding/logo/${put.body.version}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
    const again = await h.request('GET', `/fapi/${instanceId}/v1/branding/logo/${put.body.version}`, {
      headers: { 'if-none-match': image.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect((await h.request('GET', `/fapi/${instanceId}/v1/branding/logo/0000000000000000`)).status).toBe(404);
    expect((await owner.b.dash('GET', `${base}/branding`)).body.logo_url).toBe(logo_url);
  });

  it('brands every email: name, logo and support address', async () => {
    const email = await sendEmail(h.runtime.deps, {
      instanceId,
      to: 'ann@example.com',
      template: 'verification_code',
      data: { code: '654321' },
    });
    expect(email.subject).toBe('654321 is your Acme Shop verification code');
    expect(email.html).toContain((await environment()).logo_url);
    expect(email.html).toContain('help@acme.test');
  });

  it('removes the logo', async () => {
    expect((await owner.b.dash('DELETE', `${base}/branding/logo`)).body).toEqual({ object: 'logo', deleted: true });
    expect((await environment()).logo_url).toBeNull();
    expect((await owner.b.dash('DELETE', `${base}/branding/logo`)).status).toBe(404);
  });

  it('names the application: hosted pages, every email and SMS, the authenticator app', async () => {
    expectError(await owner.b.dash('PATCH', `${base}/branding`, { body: { application_name: '  ' } }), 422, 'VALIDATION_FAILED');
    expectError(await owner.b.dash('PATCH', `${base}/branding`, { body: { application_name: 'x'.repeat(101) } }), 422, 'VALIDATION_FAILED');
    const viewer = await invitedViewer(h, owner);
    expect((await viewer.dash('PATCH', `${base}/branding`, { body: { application_name: 'Nope' } })).status).toBe(403);
    const patched = await owner.b.dash('PATCH', `${base}/branding`, { body: { application_name: ' Acme Store ' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // Only the given field changes: the colour and support address set earlier stay.
    expect(patched.body).toMatchObject({ application_name: 'Acme Store', primary_color: '#0f766e', support_email: 'help@acme.test' });
    expect(await environment()).toMatchObject({ application_name: 'Acme Store', primary_color: '#0f766e' });

    const email = await sendEmail(h.runtime.deps, {
      instanceId,
      to: 'ann@example.com',
      template: 'verification_code',
      data: { code: '123456' },
    });
    expect(email.subject).toBe('123456 is your Acme Store verification code');
    const sms = await sendSms(h.runtime.deps, { instanceId, to: '+14155550100', template: 'verification_code', data: { code: '123456' } });
    expect(sms.body).toContain('Acme Store');

    const user = await createUser(h.runtime.deps, instanceId, { email_address: ['totp@example.com'] }, { audit: systemContext('test') });
    const { uri } = await beginTotpEnrollment(h.runtime.deps, await instanceContext(h.runtime.deps, instanceId), user.id);
    expect(new URL(uri).searchParams.get('issuer')).toBe('Acme Store');

    const audit = await owner.b.dash('GET', `${base}/audit_logs?action=branding.updated`);
    expect(audit.body.data[0]).toMatchObject({ action: 'branding.updated' });

    // null restores the instance's own name.
    expect((await owner.b.dash('PATCH', `${base}/branding`, { body: { application_name: null } })).body.application_name).toBe('Acme Shop');
  });
});
