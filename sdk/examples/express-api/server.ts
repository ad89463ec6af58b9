/**
 * An Express API protected by @latchkey/backend.
 *
 *   LATCHKEY_PUBLISHABLE_KEY=pk_test_… LATCHKEY_SECRET_KEY=sk_test_… LATCHKEY_API_URL=http://localhost:3000 \
 *     npx tsx sdk/examples/express-api/server.ts
 *
 * GET /api/me          signed-in callers only: who they are, from the session JWT alone (no API call)
 * GET /api/me/profile  the full user, from the backend API
 * GET /health          public
 * POST /webhooks       a Latchkey webhook endpoint (LATCHKEY_WEBHOOK_SECRET=whsec_…)
 * GET /examples/web-page/index.html?pk=pk_test_…  the web page example, on this same origin
 *                      (with the browser SDK from sdk/browser/dist: run `npm run sdk:build` first)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createBapiClient, latchkeyExpress, verifyWebhook, type RequestState } from '../../backend/src/index';

export function createApp(env: Record<string, string | undefined> = process.env) {
  const publishableKey = env.LATCHKEY_PUBLISHABLE_KEY!;
  const latchkey = createBapiClient({ secretKey: env.LATCHKEY_SECRET_KEY!, apiUrl: env.LATCHKEY_API_URL ?? 'http://localhost:3000' });
  const requireAuth = latchkeyExpress({
    publishableKey,
    requireAuth: true,
    authorizedParties: env.APP_ORIGIN ? [env.APP_ORIGIN] : undefined,
  });
  type Authed = express.Request & { auth: RequestState & { status: 'signed-in' } };

  const app = express();
  // The web page calls /api/me with the session token: served from here, it is a same-origin call.
  const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  app.use('/examples/web-page', express.static(path.join(sdk, 'examples/web-page')));
  app.use('/browser/dist', express.static(path.join(sdk, 'browser/dist')));
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/api/me', requireAuth, (req, res) => {
    const { auth } = (req as Authed).auth;
    res.json({ userId: auth.userId, sessionId: auth.sessionId, organization: auth.organization, impersonatedBy: auth.actor?.sub ?? null });
  });
  app.get('/api/me/profile', requireAuth, async (req, res, next) => {
    try {
      res.json(await latchkey.users.get((req as Authed).auth.auth.userId));
    } catch (e) {
      next(e);
    }
  });
  app.post('/webhooks', express.text({ type: '*/*' }), async (req, res) => {
    try {
      const event = await verifyWebhook({ body: req.body as string, headers: req.headers }, env.LATCHKEY_WEBHOOK_SECRET ?? '');
      process.stdout.write(`webhook ${event.type}\n`);
      res.status(204).end();
    } catch {
      res.status(400).json({ error: 'invalid signature' });
    }
  });
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 4000);
  createApp().listen(port, () => process.stdout.write(`example API on http://localhost:${port}\n`));
}
