import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const generateWebhookSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * The webhook-signature header value: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` for
 * each secret, space-separated (the previous secret signs beside the new one after a rotation).
 */
export function signatureHeader(secrets: string[], msgId: string, timestampSeconds: number, body: string): string {
  const content = `${msgId}.${timestampSeconds}.${body}`;
  return secrets
    .map(
      (s) =>
        `v1,${createHmac('sha256', Buffer.from(s.slice(PREFIX.length), 'base64'))
          .update(content)
          .digest('base64')}`,
    )
    .join(' ');
}
