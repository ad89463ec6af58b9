import { NextRequest } from 'next/server';
import { getRewrittenUrl, isRewrite } from 'next/experimental/testing/server';
import { describe, expect, it } from 'vitest';
import { proxy } from '../../proxy';
import { CUSTOM_DOMAIN_INSTANCE_HEADER, hostedBase } from './hosted-base';

const ID = 'ins_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('hosted pages on a custom domain (proxy.ts)', () => {
  it('serves the host root as the named instance’s hosted pages', () => {
    for (const [path, to] of [
      ['/sign-in?locale=fr', `/fapi/${ID}/sign-in?locale=fr`],
      ['/', `/fapi/${ID}`],
      ['/profile', `/fapi/${ID}/profile`],
      ['/accounts/acct_x', `/fapi/${ID}/accounts/acct_x`], // the console is not there: Next's 404
    ]) {
      const res = proxy(new NextRequest(`https://auth.shop.example${path}`, { headers: { [CUSTOM_DOMAIN_INSTANCE_HEADER]: ID } }));
      expect(isRewrite(res), path).toBe(true);
      expect(getRewrittenUrl(res)).toBe(`https://auth.shop.example${to}`);
    }
  });

  it('does not rewrite without the header or with a malformed instance id', () => {
    for (const headers of [{}, { [CUSTOM_DOMAIN_INSTANCE_HEADER]: '../x' }, { [CUSTOM_DOMAIN_INSTANCE_HEADER]: 'ins_short' }] as Record<
      string,
      string
    >[]) {
      expect(isRewrite(proxy(new NextRequest('http://localhost:3000/sign-in', { headers })))).toBe(false);
    }
  });

  it('puts the pages and their FAPI calls at the root only for that instance', () => {
    expect(hostedBase(ID, ID)).toBe('');
    expect(hostedBase(ID, null)).toBe(`/fapi/${ID}`);
    expect(hostedBase(ID, 'ins_01ARZ3NDEKTSV4RRFFQ69G5FAW')).toBe(`/fapi/${ID}`);
  });
});
