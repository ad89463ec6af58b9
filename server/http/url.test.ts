import { describe, expect, it } from 'vitest';
import { httpUrl, isHttpUrl, pathOf } from './url';

describe('isHttpUrl', () => {
  it('takes absolute http and https URLs only', () => {
    expect(isHttpUrl('https://example.com/a?b=1#c')).toBe(true);
    expect(isHttpUrl('http://localhost:3000')).toBe(true);
    expect(isHttpUrl('HTTPS://EXAMPLE.COM')).toBe(true);
    for (const v of ['ftp://example.com', 'javascript:alert(1)', 'mailto:a@example.com', '/relative', 'example.com', '', 'http://']) {
      expect(isHttpUrl(v), v).toBe(false);
    }
  });

  it('bare: refuses credentials, a query and a fragment', () => {
    expect(isHttpUrl('https://api.example.com/range/', { bare: true })).toBe(true);
    for (const v of ['https://u:p@example.com', 'https://u@example.com', 'https://example.com/?q=1', 'https://example.com/#x']) {
      expect(isHttpUrl(v), v).toBe(true);
      expect(isHttpUrl(v, { bare: true }), v).toBe(false);
    }
  });

  it('httpUrl answers the parsed URL or null', () => {
    expect(httpUrl('https://example.com:8443/x')?.origin).toBe('https://example.com:8443');
    expect(httpUrl('data:text/plain,hi')).toBeNull();
    expect(httpUrl('not a url')).toBeNull();
  });
});

describe('pathOf', () => {
  it('answers what new URL(url).pathname does, for serialised request URLs', () => {
    for (const url of [
      'http://localhost:3000/v1/users/user_1',
      'http://localhost:3000/v1/users?limit=20',
      'http://127.0.0.1:4711/fapi/ins_1/v1/client/sessions/sess_1/tokens?_is_native=1#x',
      'https://auth.example.com/',
      'https://auth.example.com',
      'http://[::1]:3000/healthz',
      'http://localhost:3000/a%2Fb/%20c?x=/y',
      'http://localhost:3000//double//slash',
      'http://localhost:3000/v1?',
      'http://localhost:3000/a#b?c',
    ]) {
      expect(pathOf(url), url).toBe(new URL(url).pathname);
    }
  });
});
