import { describe, expect, it } from 'vitest';
import { httpUrl, isHttpUrl } from './url';

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
