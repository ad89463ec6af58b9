import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A prefixed high-entropy secret: 32 random bytes, base64url. */
export const generateSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
