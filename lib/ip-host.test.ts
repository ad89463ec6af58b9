import { describe, expect, it } from 'vitest';
import { ipHostOf } from './ip-host';

describe('ipHostOf', () => {
  it('names an IPv4 or IPv6 host and nothing else', () => {
    expect(ipHostOf('http://192.168.1.20:3000/fapi/ins_1')).toBe('192.168.1.20');
    expect(ipHostOf('http://[::1]:3000/')).toBe('[::1]');
    expect(ipHostOf('http://localhost:3000/fapi/ins_1')).toBeNull();
    expect(ipHostOf('https://auth.example.com')).toBeNull();
    expect(ipHostOf('https://1.2.3.example.com')).toBeNull();
    expect(ipHostOf('not a url')).toBeNull();
  });
});
