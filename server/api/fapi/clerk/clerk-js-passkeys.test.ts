import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_METHODS } from '../../../instances/password-rules';
import { required } from '../../../testing/requirements';
import {
  apiError,
  CHROMIUM,
  clerkState,
  hasChromiumBinary,
  inPage,
  loadClerk,
  signedInClerkUser,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * Passkeys through `@clerk/clerk-js` 6.x (its browser bundle from npm, unchanged, in Chromium
 * with the DevTools protocol's virtual authenticator) against an instance's FAPI:
 * `user.createPasskey()`, the user's passkeys renamed and deleted, `signIn.authenticateWithPasskey()`
 * without an identifier and after one. The app and the API are on `latchkey.localhost`: WebAuthn
 * takes a domain, never an IP address, as its relying party id (the fapi_url's host).
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium)
    x = await startClerkBrowserHarness({
      host: 'latchkey.localhost',
      settings: { name_required: false, sign_in_methods: { ...DEFAULT_SIGN_IN_METHODS, passkey: true } },
    });
}, 120_000);
afterAll(async () => {
  await x?.close();
});

const PASSWORD = 'correct horse battery staple 42';
let seq = 0;
const email = (tag: string) => `clerkjs-${tag}-${++seq}-${Date.now()}@example.com`;

/** A platform authenticator with resident keys and user verification in this page's browser. */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

/** Signs out; clerk-js then loads the app's root again. */
async function signOut(page: Page) {
  await Promise.all([page.waitForEvent('load'), inPage(page, async (clerk) => clerk.signOut(), null)]);
  await loadClerk(page);
}

const passkeysOf = (page: Page) =>
  inPage(page, async (clerk) => (clerk.user.passkeys as { id: string; name: string }[]).map((p) => ({ id: p.id, name: p.name })), null);

describe.skipIf(!hasChromium)('passkeys through clerk-js', () => {
  it('createPasskey registers one on the authenticator; it is renamed, signs in without and with an identifier, and once deleted signs nobody in', async () => {
    const address = email('passkey');
    const { userId, context, page } = await signedInClerkUser(x, address, PASSWORD);
    const authenticator = await virtualAuthenticator(page);

    // The environment tells clerk-js passkeys are on.
    expect(await inPage(page, async (clerk) => clerk.__internal_environment.userSettings.attributes.passkey.enabled as boolean, null)).toBe(
      true,
    );

    const created = await inPage(
      page,
      async (clerk) => {
        const p = await clerk.user.createPasskey();
        return { id: p.id as string, name: p.name as string, status: p.verification?.status as string };
      },
      null,
    );
    expect(created).toEqual({ id: expect.stringMatching(/^passkey_(?!registration)/), name: 'Passkey', status: 'verified' });
    // What clerk-js sent: an empty create, then the credential to the created passkey's verification.
    const sent = () =>
      x.calls
        .filter((c) => c.url.pathname.includes('/v1/me/passkeys'))
        .map((c) => `${c.method} ${c.url.pathname.split('/v1/')[1]} ${c.status}`);
    await expect.poll(sent).toEqual(['POST me/passkeys 200', 'POST me/passkeys/passkey_registration/attempt_verification 200']);
    const [credential] = await authenticator.credentials();
    expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'latchkey.localhost' });
    expect(await passkeysOf(page)).toEqual([{ id: created.id, name: 'Passkey' }]);
    // The user's own read (user.reload, GET /v1/me) carries them too.
    expect(await inPage(page, async (clerk) => (await clerk.user.reload()).passkeys.length as number, null)).toBe(1);

    // The same authenticator again: the browser refuses (its credential is excluded), clerk-js drops the pending one.
    const again = await inPage(
      page,
      async (clerk) => {
        try {
          await clerk.user.createPasskey();
          return null;
        } catch (e) {
          return (e as { code?: string }).code ?? String(e);
        }
      },
      null,
    );
    expect(again).toBe('passkey_already_exists');
    expect(await passkeysOf(page)).toHaveLength(1);

    const renamed = await inPage(page, async (clerk) => (await clerk.user.passkeys[0].update({ name: 'Laptop' })).name as string, null);
    expect(renamed).toBe('Laptop');
    expect(await passkeysOf(page)).toEqual([{ id: created.id, name: 'Laptop' }]);

    // Signed out, the passkey alone signs in (username-less: the authenticator picks the credential).
    await signOut(page);
    expect(await clerkState(page)).toMatchObject({ userId: null });
    const discoverable = await inPage(
      page,
      async (clerk) => {
        const si = await clerk.client.signIn.authenticateWithPasskey({ flow: 'discoverable' });
        await clerk.setActive({ session: si.createdSessionId });
        return { status: si.status as string, userId: clerk.user?.id as string };
      },
      null,
    );
    expect(discoverable).toEqual({ status: 'complete', userId });

    // After the identifier: the factor clerk-js prepares lists that user's passkeys.
    await signOut(page);
    const withIdentifier = await inPage(
      page,
      async (clerk, identifier) => {
        const started = await clerk.client.signIn.create({ identifier });
        const offered = (started.supportedFirstFactors as { strategy: string }[]).map((f) => f.strategy);
        const si = await started.authenticateWithPasskey();
        await clerk.setActive({ session: si.createdSessionId });
        return { offered, status: si.status as string, userId: clerk.user?.id as string };
      },
      address,
    );
    expect(withIdentifier).toEqual({ offered: expect.arrayContaining(['passkey', 'password']), status: 'complete', userId });

    const deleted = await inPage(
      page,
      async (clerk) => {
        const gone = await clerk.user.passkeys[0].delete();
        await clerk.user.reload();
        return { deleted: gone.deleted as boolean, left: clerk.user.passkeys.length as number };
      },
      null,
    );
    expect(deleted).toEqual({ deleted: true, left: 0 });

    // The authenticator still holds the credential; the server no longer takes it.
    await signOut(page);
    // The sign-ins above spent this browser's per-IP attempt budget (3 / 10 s).
    x.h.clock.advance(11_000);
    const refused = await apiError(page, (clerk) => clerk.client.signIn.authenticateWithPasskey({ flow: 'discoverable' }), null);
    expect(refused).toMatchObject({ status: 422, codes: ['passkey_invalid'] });
    expect(await clerkState(page)).toMatchObject({ userId: null });
    await context.close();
  }, 90_000);
});
