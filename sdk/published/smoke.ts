/**
 * A customer's first script against the packed @latchkey/backend (copied into a scratch project
 * outside the repository by published.spec.ts): call the backend API, verify a session token
 * offline, verify a webhook delivery. Prints one JSON line.
 */
import { createBapiClient, verifyToken, verifyWebhook, type SessionAuth } from '@latchkey/backend';
import { createNextAuth } from '@latchkey/backend/next';
import { Webhook } from 'standardwebhooks';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const latchkey = createBapiClient({ secretKey: env('LATCHKEY_SECRET_KEY'), apiUrl: env('LATCHKEY_API_URL') });
const user = await latchkey.users.create({ email_address: ['smoke@example.com'] });
const { jwt } = await latchkey.sessions.create({ user_id: user.id });

const auth: SessionAuth = await verifyToken(jwt, { publishableKey: env('LATCHKEY_PUBLISHABLE_KEY') });
const next = await createNextAuth({ publishableKey: env('LATCHKEY_PUBLISHABLE_KEY') }).auth(
  new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${jwt}` } }),
);

const secret = 'whsec_' + btoa('a webhook secret of 32 bytes....');
const body = JSON.stringify({ type: 'user.created', data: { id: user.id } });
const signature = new Webhook(secret).sign('msg_smoke', new Date(), body);
const event = await verifyWebhook(
  {
    body,
    headers: { 'webhook-id': 'msg_smoke', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': signature },
  },
  secret,
);

process.stdout.write(`${JSON.stringify({ userId: user.id, verifiedUserId: auth.userId, nextStatus: next.status, webhook: event.type })}\n`);
