import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCipher } from './cipher';
import { newRefreshToken, REFRESH_GRACE_MS, rotationState, successorOf } from './refresh-rotation';

const kind = { prefix: 'xt_', macPurpose: 'test-refresh-token' };
const cipher = createCipher(randomBytes(32));

describe('rotating refresh tokens', () => {
  it('issues prefixed random tokens', () => {
    const a = newRefreshToken(kind);
    expect(a).toMatch(/^xt_[A-Za-z0-9_-]{43}$/);
    expect(newRefreshToken(kind)).not.toBe(a);
  });

  it('derives one successor per token, bound to the kind and the key', () => {
    const token = newRefreshToken(kind);
    const successor = successorOf(cipher, kind, token);
    expect(successor).toMatch(/^xt_[A-Za-z0-9_-]{43}$/);
    expect(successorOf(cipher, kind, token)).toBe(successor);
    expect(successorOf(cipher, kind, newRefreshToken(kind))).not.toBe(successor);
    expect(successorOf(cipher, { ...kind, macPurpose: 'other' }, token)).not.toBe(successor);
    expect(successorOf(createCipher(randomBytes(32)), kind, token)).not.toBe(successor);
  });

  it('reads a presented token as current, within the grace window, or reused after it', () => {
    expect(rotationState(null, 5_000)).toBe('current');
    expect(rotationState(1_000, 1_000)).toBe('grace');
    expect(rotationState(1_000, 1_000 + REFRESH_GRACE_MS)).toBe('grace');
    expect(rotationState(1_000, 1_000 + REFRESH_GRACE_MS + 1)).toBe('reused');
  });
});
