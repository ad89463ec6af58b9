import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, instanceWith, signUp } from '../testing/auth-flows';
import { createHarness, type TestHarness } from '../testing/harness';
import { browserGet, createOAuthApp, relyingParty, startCodeFlow } from '../testing/oidc';
import { purgeOAuthArtifacts } from './housekeeping';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('purgeOAuthArtifacts', () => {
  it('keeps used codes and device codes a day past expiry, revoked access tokens until they would expire', async () => {
    const inst = await instanceWith(h);
    const b = browserOf(h, inst);
    await signUp(h, b, { email_address: 'kim@example.com', password: 'correct horse battery staple' });
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false, scopes: ['openid', 'api'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid' });
    expect((await browserGet(h, b, flow.url)).status).toBe(302);
    const cc = await client.clientCredentialsGrant(config, { scope: 'api' });
    await client.tokenRevocation(config, cc.access_token);
    const cli = await createOAuthApp(h, inst, { public: true, device_flow_enabled: true, scopes: ['openid'] });
    const device = await h.request('POST', `/fapi/${inst.instanceId}/oauth2/device_authorization`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: new URLSearchParams({ client_id: cli.client_id, scope: 'openid' }).toString(),
    });
    expect(device.status).toBe(200);

    expect(await purgeOAuthArtifacts(h.runtime.deps)).toEqual({ codes: 0, refresh_tokens: 0, revoked_access_tokens: 0, device_codes: 0 });
    h.clock.advance(16 * 60_000);
    expect(await purgeOAuthArtifacts(h.runtime.deps)).toEqual({ codes: 0, refresh_tokens: 0, revoked_access_tokens: 1, device_codes: 0 });
    h.clock.advance(24 * 3600_000);
    expect(await purgeOAuthArtifacts(h.runtime.deps)).toEqual({ codes: 1, refresh_tokens: 0, revoked_access_tokens: 0, device_codes: 1 });
  });
});
