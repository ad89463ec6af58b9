import { describe, expect, it } from 'vitest';
import { toDuration, toSeconds } from './duration';
import { mergePatch } from './merge-patch';
import { query, safeReturnPath } from './paths';

describe('console helpers', () => {
  it('shows durations in the largest exact unit and converts them back to seconds', () => {
    expect(toDuration(7 * 86400, ['minutes', 'hours', 'days'])).toEqual({ amount: '7', unit: 'days' });
    expect(toDuration(90 * 60, ['minutes', 'hours', 'days'])).toEqual({ amount: '90', unit: 'minutes' });
    expect(toDuration(60, ['seconds', 'minutes'])).toEqual({ amount: '1', unit: 'minutes' });
    expect(toDuration(45, ['seconds', 'minutes'])).toEqual({ amount: '45', unit: 'seconds' });
    expect(toSeconds({ amount: '1.5', unit: 'hours' })).toBe(5400);
    expect(toSeconds({ amount: '', unit: 'days' })).toBeNull();
    expect(toSeconds({ amount: '0', unit: 'days' })).toBeNull();
    expect(toSeconds({ amount: 'abc', unit: 'days' })).toBeNull();
  });

  it('turns edited metadata into a deep-merge patch that deletes removed keys', () => {
    const before = { plan: 'pro', crm: { id: 7, tier: 'gold' }, tags: ['a'] };
    const after = { plan: 'team', crm: { id: 7 }, tags: ['b'], added: true };
    expect(mergePatch(before, after)).toEqual({ plan: 'team', crm: { id: 7, tier: null }, tags: ['b'], added: true });
    expect(mergePatch({ a: 1 }, {})).toEqual({ a: null });
  });

  it('only returns to paths of the console itself', () => {
    expect(safeReturnPath('/accounts/acct_1?x=1')).toBe('/accounts/acct_1?x=1');
    expect(safeReturnPath('https://evil.example')).toBe('/');
    expect(safeReturnPath('//evil.example/x')).toBe('/');
    expect(safeReturnPath('/\\evil.example')).toBe('/');
    expect(safeReturnPath(null)).toBe('/');
  });

  it('builds query strings from the values that are set', () => {
    expect(query({ a: 'x y', b: undefined, c: '', d: 0, e: null })).toBe('?a=x+y&d=0');
    expect(query({})).toBe('');
  });
});
