import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors';
import { certificateDetails, parseIdpMetadata } from './idp-metadata';

/** Metadata documents in each IdP's published shape (fixtures/README.md names the sources). */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures/metadata', name), 'utf8');
const pem = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const bare = (p: string) => p.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
const IDP_CERT = bare(pem('idp-cert.pem'));
const OTHER_CERT = bare(pem('other-cert.pem'));

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = (err as AppError).entries()[0]!;
    expect(e.meta).toMatchObject({ param: 'saml.idp_metadata_xml', reason: 'metadata_invalid' });
    return e.message;
  }
  throw new Error('not refused');
}

describe('IdP metadata as identity providers publish it', () => {
  it.each([
    [
      'okta.xml',
      'http://www.okta.com/exk1fcia6d6EMsf331t8',
      'redirect',
      'https://acme.okta.com/app/acme_latchkey_1/exk1fcia6d6EMsf331t8/sso/saml',
      [IDP_CERT],
    ],
    [
      'entra.xml',
      'https://sts.windows.net/9188040d-6c67-4c5b-b112-36a304b66dad/',
      'redirect',
      'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/saml2',
      [IDP_CERT, OTHER_CERT],
    ],
    ['adfs.xml', 'http://adfs.acme.test/adfs/services/trust', 'redirect', 'https://adfs.acme.test/adfs/ls/', [IDP_CERT]],
    [
      'google.xml',
      'https://accounts.google.com/o/saml2?idpid=C01abcd23',
      'post',
      'https://accounts.google.com/o/saml2/idp?idpid=C01abcd23',
      [IDP_CERT],
    ],
    [
      'onelogin.xml',
      'https://app.onelogin.com/saml/metadata/5f1d2c3b-aaaa-bbbb-cccc-0123456789ab',
      'post',
      'https://acme.onelogin.com/trust/saml2/http-post/sso/5f1d2c3b-aaaa-bbbb-cccc-0123456789ab',
      [IDP_CERT],
    ],
    [
      'testshib.xml',
      'https://idp.testshib.org/idp/shibboleth',
      'redirect',
      'https://idp.testshib.org/idp/profile/SAML2/Redirect/SSO',
      [IDP_CERT],
    ],
    [
      'keycloak.xml',
      'https://keycloak.acme.test/realms/acme',
      'redirect',
      'https://keycloak.acme.test/realms/acme/protocol/saml',
      [IDP_CERT],
    ],
    ['pingfederate.xml', 'https://sso.acme.test:9031', 'redirect', 'https://sso.acme.test:9031/idp/SSO.saml2', [IDP_CERT]],
  ])(
    '%s: entity id, SSO URL and binding, every signing certificate (encryption-only keys left out)',
    (file, entityId, binding, ssoUrl, certificates) => {
      expect(parseIdpMetadata(fixture(file))).toEqual({ entityId, ssoBinding: binding, ssoUrl, certificates });
    },
  );

  it('a federation aggregate with several IdPs: one is picked by entity id, none without it', () => {
    const xml = fixture('shibboleth-federation.xml');
    expect(refusal(() => parseIdpMetadata(xml))).toMatch(/names 2 identity providers: give saml.idp_entity_id/);
    expect(parseIdpMetadata(xml, 'https://idp.south.example.edu/idp/shibboleth')).toMatchObject({
      ssoUrl: 'https://idp.south.example.edu/idp/profile/SAML2/Redirect/SSO',
      certificates: [IDP_CERT],
    });
    // A KeyDescriptor without `use` serves signing.
    expect(parseIdpMetadata(xml, 'https://idp.north.example.edu/idp/shibboleth').certificates).toEqual([OTHER_CERT]);
    expect(refusal(() => parseIdpMetadata(xml, 'https://idp.west.example.edu/idp/shibboleth'))).toMatch(/names no identity provider/);
  });

  it('refuses a truncated or junk certificate at once, naming which', () => {
    const truncated = fixture('okta.xml').replace(IDP_CERT, IDP_CERT.slice(0, 300));
    expect(refusal(() => parseIdpMetadata(truncated))).toMatch(/Signing certificate 1 is not a readable X.509 certificate/);
    const junk = fixture('okta.xml').replace(IDP_CERT, Buffer.from('not a certificate at all').toString('base64'));
    expect(refusal(() => parseIdpMetadata(junk))).toMatch(/not a readable/);
  });

  it('refuses what is not IdP metadata', () => {
    expect(refusal(() => parseIdpMetadata('<nope/>'))).toMatch(/is not an EntityDescriptor or EntitiesDescriptor/);
    expect(refusal(() => parseIdpMetadata('<!DOCTYPE x [<!ENTITY a "b">]><x/>'))).toMatch(/DOCTYPE/);
    const soapOnly = fixture('onelogin.xml').replace(
      /<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*\/>/,
      '',
    );
    expect(refusal(() => parseIdpMetadata(soapOnly))).toMatch(/names no HTTP-Redirect or HTTP-POST SingleSignOnService/);
    const spOnly = fixture('testshib.xml').replace(
      /<EntityDescriptor entityID="https:\/\/idp.testshib.org[\s\S]*?<\/EntityDescriptor>/,
      '',
    );
    expect(refusal(() => parseIdpMetadata(spOnly))).toMatch(/has no IDPSSODescriptor/);
  });

  it('tells each certificate apart and flags an expired one (kept: the IdP may still sign with it)', () => {
    const [idp] = certificateDetails([IDP_CERT], Date.parse('2030-01-01'));
    expect(idp).toMatchObject({ subject: 'CN=idp.test-idp.example', expired: false });
    expect(idp!.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(certificateDetails([IDP_CERT], Date.parse('2037-01-01'))[0]!.expired).toBe(true);
  });
});
