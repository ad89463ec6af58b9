import { resolveTxt } from 'node:dns/promises';
import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { bapiWith } from '../testing/fapi-helpers';

/**
 * DNS_RESOLVER unset: domain verification looks the TXT record up through the system's resolver
 * (node:dns). A name under the reserved `.invalid` TLD (RFC 6761) never resolves: the check fails
 * with the clean 422 reason, kept on the domain, and never a 500.
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const { call: bapi, ok } = bapiWith(h, i);

describe('domain verification through the system resolver', () => {
  it('uses node:dns when DNS_RESOLVER is unset, and answers a lookup that finds nothing as txt_record_not_found', async () => {
    expect(h.runtime.deps.config.DNS_RESOLVER).toBeUndefined();
    expect(h.runtime.deps.txtResolver.resolveTxt).toBe(resolveTxt);
    const org = await ok('POST', '/v1/organizations', { name: 'System resolver' });
    const name = `nowhere${Date.now().toString(36)}.invalid`;
    const dom = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name })).body;
    expect(dom.verification).toMatchObject({ status: 'unverified', last_checked_at: null, error: null });
    const res = await bapi('POST', `/v1/organizations/${org.id}/domains/${dom.id}/attempt_verification`, { strategy: 'dns_record' });
    expectError(res, 422, 'VALIDATION_FAILED', { reason: 'txt_record_not_found' });
    // ENOTFOUND where a resolver answers; a failed lookup (its code named) where none is reachable: both a clean reason.
    const message: string = res.body.errors[0].message;
    expect(message).toMatch(
      new RegExp(`^No TXT record _latchkey-verification\\.${name.replace(/\./g, '\\.')} with the expected value was found`),
    );
    const after = await ok('GET', `/v1/organizations/${org.id}/domains/${dom.id}`);
    expect(after.verification).toMatchObject({ status: 'unverified', last_checked_at: h.clock.now(), error: message });
  });
});
