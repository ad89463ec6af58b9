import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, hostedSignUp, uniqueEmail } from './support/helpers';

/**
 * Issue #51: `prompt=login` and `max_age` force a real new authentication on the hosted sign-in.
 * A browser already signed in is sent by a relying party to the authorization endpoint; the
 * hosted page asks for the password (no "Continue" with the session it has), and the ID token
 * the code yields carries a fresh auth_time. The relying party is a loopback server that keeps
 * the codes its callback receives; the test exchanges them as the RP would.
 */
test('prompt=login and max_age=1 ask a signed-in browser for its password again; the ID token’s auth_time is fresh', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const codes: string[] = [];
  const rp = createServer((req, res) => {
    const code = new URL(req.url ?? '/', 'http://rp').searchParams.get('code');
    if (code) codes.push(code);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Relying party</title><p>relying party</p>');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  const CALLBACK = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/callback`;
  const { instance } = await createOperatorInstance(page, {
    firstName: 'Otto',
    email: uniqueEmail('oidc-owner'),
    password: 'providers ask again',
    accountName: 'Relying Co',
    instanceName: 'RP',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const app = await bapi<{ client_id: string; client_secret: string }>(secret, 'POST', '/v1/oauth_applications', {
    name: 'Relying party',
    redirect_uris: [CALLBACK],
    scopes: ['openid', 'email'],
    consent_screen_enabled: false,
  });

  const context = await browser.newContext();
  const user = await context.newPage();
  const email = uniqueEmail('oidc-user');
  const password = 'an old session is not enough';

  await test.step('the user signs up on the hosted page: the browser holds a session', async () => {
    await hostedSignUp(user, { ...instance, secret }, email, password);
  });

  const authorize = (extra: Record<string, string>) =>
    `${instance.fapi_url}/oauth2/authorize?${new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid email',
      state: 'st',
      nonce: 'n',
      ...extra,
    })}`;

  /** The code the RP's callback received, exchanged for tokens; the ID token's claims. */
  async function idTokenClaims(): Promise<{ auth_time: number; sub: string }> {
    await expect.poll(() => codes.length).toBe(1);
    const res = await fetch(`${instance.fapi_url}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: codes.pop()!, redirect_uri: CALLBACK }),
    });
    expect(res.status).toBe(200);
    const { id_token } = (await res.json()) as { id_token: string };
    return JSON.parse(Buffer.from(id_token.split('.')[1]!, 'base64url').toString('utf8'));
  }

  /** The hosted sign-in shows its form, not "You're signed in / Continue"; the password signs in again. */
  async function signInAgain(p: Page) {
    await expect(p).toHaveURL(/\/sign-in/);
    await expect(p.getByLabel(en.fields.identifier)).toBeVisible();
    await expect(p.getByText(en.signIn.alreadyTitle)).toHaveCount(0);
    await expect(p.getByRole('button', { name: en.signIn.continue, exact: true })).toHaveCount(0);
    await p.getByLabel(en.fields.identifier).fill(email);
    await p.getByLabel(en.fields.password, { exact: true }).fill(password);
    await p.getByRole('button', { name: en.signIn.submit, exact: true }).click();
    await expect(p).toHaveURL(new RegExp(`^${CALLBACK}\\?code=`), { timeout: 30_000 });
  }

  let firstAuthTime = 0;
  await test.step('without prompt, the session the browser has answers at once', async () => {
    await user.goto(authorize({}));
    await expect(user).toHaveURL(new RegExp(`^${CALLBACK}\\?code=`));
    firstAuthTime = (await idTokenClaims()).auth_time;
  });

  await user.waitForTimeout(2_000);
  await test.step('prompt=login: the password again, a fresh auth_time', async () => {
    await user.goto(authorize({ prompt: 'login' }));
    await signInAgain(user);
    expect((await idTokenClaims()).auth_time).toBeGreaterThan(firstAuthTime);
  });

  await user.waitForTimeout(2_000);
  await test.step('max_age=1 after two seconds: the password again, a fresh auth_time', async () => {
    const before = Math.floor(Date.now() / 1000) - 1;
    await user.goto(authorize({ max_age: '1' }));
    await signInAgain(user);
    expect((await idTokenClaims()).auth_time).toBeGreaterThanOrEqual(before);
  });
  await context.close();
  rp.close();
});
