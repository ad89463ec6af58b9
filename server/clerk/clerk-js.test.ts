import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { required } from '../testing/requirements';
import { CHROMIUM, hasChromiumBinary, startClerkBrowserHarness, type ClerkBrowserHarness } from './fapi/browser-harness';

const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium) x = await startClerkBrowserHarness();
}, 120_000);
afterAll(async () => {
  await x?.close();
});

describe.skipIf(!hasChromium)('clerk-js boots against the FAPI', () => {
  it('loads', async () => {
    const { context, page } = await x.openApp({ load: false });
    const err = await page.evaluate(async () => {
      try {
        await (window as unknown as { Clerk: { load(): Promise<void> } }).Clerk.load();
        return null;
      } catch (e) {
        return String(e);
      }
    });
    for (const c of x.calls) console.log(c.method, c.url.pathname + c.url.search, c.body, '→', c.status, c.response.slice(0, 300));
    expect(err).toBeNull();
    await context.close();
  }, 60_000);
});
