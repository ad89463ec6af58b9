import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../infra/logger';

/** AES-256-GCM for secrets kept at rest (signing keys). Blobs: `v1.<key id>.<iv>.<tag>.<ciphertext>`. */
export interface Cipher {
  encrypt(plaintext: string): string;
  decrypt(blob: string): string;
  /** HMAC-SHA256 under a subkey derived for `purpose`, base64url. */
  mac(purpose: string, data: string): string;
}

export function createCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new Error('The encryption key must be 32 bytes.');
  const keyId = createHash('sha256').update(key).digest('base64url').slice(0, 8);
  const subkeys = new Map<string, Buffer>();
  const subkey = (purpose: string) => {
    let k = subkeys.get(purpose);
    if (!k) subkeys.set(purpose, (k = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `latchkey:${purpose}`, 32))));
    return k;
  };
  return {
    mac: (purpose, data) => createHmac('sha256', subkey(purpose)).update(data).digest('base64url'),
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    decrypt(blob) {
      const [version, id, iv, tag, data] = blob.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unrecognised encrypted value.');
      if (id !== keyId) throw new Error('This value was encrypted with another ENCRYPTION_KEY.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

const decodeKey = (value: string) => (/^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64'));

/**
 * ENCRYPTION_KEY when set. Otherwise, with the embedded store, a key generated on first
 * start and kept in DATA_DIR (with a warning); PostgreSQL deployments must set one, since
 * every node needs the same key.
 */
export function loadEncryptionKey(config: Config, logger: Logger): Buffer {
  if (config.ENCRYPTION_KEY) return decodeKey(config.ENCRYPTION_KEY);
  if (config.DATABASE_URL) {
    throw new Error(
      'ENCRYPTION_KEY is required with DATABASE_URL: every node must encrypt with the same key. Generate one with `openssl rand -hex 32`.',
    );
  }
  const file = path.join(config.DATA_DIR, 'encryption.key');
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  logger.warn({ file }, 'ENCRYPTION_KEY is not set: using a key generated in DATA_DIR. Set ENCRYPTION_KEY in production.');
  return decodeKey(readFileSync(file, 'utf8').trim());
}
