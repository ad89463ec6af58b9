import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { browserOf } from '../testing/auth-flows';
import { bapiWith, createTestUser } from '../testing/fapi-helpers';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const other = sharedInstance(h);

let seq = 0;
const uniqEmail = (tag: string) => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;
const { ok: bapiOk } = bapiWith(h, i);

/** An invitation to `email` by a named inviter, as admin; answers the link's token. */
async function invite(email: string) {
  const inviter = await createTestUser(h, i, { email_address: uniqEmail('inviter'), first_name: 'Grace', last_name: 'Hopper' });
  const org = await bapiOk('POST', '/v1/organizations', { name: `Navy ${++seq}`, created_by: inviter });
  const inv = await bapiOk('POST', `/v1/organizations/${org.id}/invitations`, {
    email_address: email,
    role: 'org:admin',
    inviter_user_id: inviter,
  });
  const token = new URL(String((await h.outbox(email))[0]!.data.url)).searchParams.get('invitation_token')!;
  return { org, inv, token };
}

describe('the invitation link before signing in (POST /v1/organization_invitations/preview)', () => {
  it('names the organization, the inviter, the role and the invited address; an unknown or another instance’s token is 404', async () => {
    const email = uniqEmail('ada');
    const { org, token } = await invite(email);
    const b = browserOf(h, i);
    const res = await b.call('POST', '/v1/organization_invitations/preview', { body: { token } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      object: 'organization_invitation_preview',
      email_address: email,
      status: 'pending',
      organization: { name: org.name, image_url: null },
      role: { key: 'org:admin', name: 'Admin' },
      inviter_name: 'Grace Hopper',
      expires_at: expect.any(Number),
    });
    expectError(await b.call('POST', '/v1/organization_invitations/preview', { body: { token: 'oit_nope' } }), 404, 'NOT_FOUND');
    expectError(await browserOf(h, other).call('POST', '/v1/organization_invitations/preview', { body: { token } }), 404, 'NOT_FOUND');
    expectError(await b.call('POST', '/v1/organization_invitations/preview', { body: {} }), 422, 'VALIDATION_FAILED', { param: 'token' });
  });

  it('names an inviter who gave no name by their address, in the preview and the email', async () => {
    const address = uniqEmail('nameless');
    const inviter = await createTestUser(h, i, { email_address: address });
    const org = await bapiOk('POST', '/v1/organizations', { name: `Fleet ${++seq}`, created_by: inviter });
    const email = uniqEmail('sailor');
    await bapiOk('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email, role: 'org:member', inviter_user_id: inviter });
    const mail = (await h.outbox(email))[0]!;
    expect(mail.data.inviter_name).toBe(address);
    const token = new URL(String(mail.data.url)).searchParams.get('invitation_token')!;
    const res = await browserOf(h, i).call('POST', '/v1/organization_invitations/preview', { body: { token } });
    expect(res.body.inviter_name).toBe(address);
  });
});

describe('signing up through an organization invitation (ticket = invitation_token)', () => {
  it('completes at once with the invited address verified by the ticket: no code is sent; the invitation is then accepted', async () => {
    const email = uniqEmail('invitee');
    const { org, token } = await invite(email);
    const b = browserOf(h, i);
    const res = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: email, password: 'a long enough passphrase', ticket: token },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.response).toMatchObject({
      status: 'complete',
      unverified_fields: [],
      created_session_id: expect.stringMatching(/^sess_/),
    });
    expect((await h.outbox(email)).map((m) => m.template)).toEqual(['organization_invitation']);
    const userId = res.body.response.created_user_id as string;
    const user = await bapiOk('GET', `/v1/users/${userId}`);
    expect(user.email_addresses).toEqual([
      expect.objectContaining({ email_address: email, verification: { status: 'verified', strategy: 'ticket' } }),
    ]);

    const accepted = await b.call('POST', '/v1/me/organization_invitations/accept', { body: { token } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.membership).toMatchObject({ role: 'org:admin', organization: { id: org.id } });
  });

  it('verifies nothing for another address, another instance, or a spent invitation (422 invitation_invalid, no user)', async () => {
    const email = uniqEmail('owner');
    const { org, inv, token } = await invite(email);
    const b = browserOf(h, i);
    const otherAddress = uniqEmail('thief');
    expectError(
      await b.call('POST', '/v1/client/sign_ups', {
        body: { email_address: otherAddress, password: 'a long enough passphrase', ticket: token },
      }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'ticket',
        reason: 'invitation_invalid',
      },
    );
    expectError(
      await browserOf(h, other).call('POST', '/v1/client/sign_ups', {
        body: { email_address: email, password: 'a long enough passphrase', ticket: token },
      }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'invitation_invalid',
      },
    );
    await bapiOk('POST', `/v1/organizations/${org.id}/invitations/${inv.id}/revoke`);
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: 'a long enough passphrase', ticket: token } }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'invitation_invalid',
      },
    );
    expect((await bapiOk('GET', `/v1/users?email_address=${encodeURIComponent(email)}`)).data ?? []).toEqual([]);
    expect((await bapiOk('GET', `/v1/users?email_address=${encodeURIComponent(otherAddress)}`)).data ?? []).toEqual([]);
  });

  it('a sign-up without the ticket still verifies the address by code', async () => {
    const email = uniqEmail('plain');
    await invite(email);
    const res = await browserOf(h, i).call('POST', '/v1/client/sign_ups', {
      body: { email_address: email, password: 'a long enough passphrase' },
    });
    expect(res.body.response).toMatchObject({ status: 'missing_requirements', unverified_fields: ['email_address'] });
  });
});
