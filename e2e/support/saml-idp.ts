import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as samlify from 'samlify';

samlify.setSchemaValidator({ validate: async () => 'skipped' });
const fixture = (name: string) => readFileSync(join(process.cwd(), 'server/sso/fixtures', name), 'utf8');
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/**
 * A SAML identity provider on loopback, built with samlify: it answers an AuthnRequest for
 * `user` with a signed response, posted back to the SP's ACS by an auto-submitting form.
 */
export async function startIdp(user: string) {
  let sp: ReturnType<typeof samlify.ServiceProvider> | null = null;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://idp');
      if (url.pathname !== '/sso' || !sp) return res.writeHead(404).end();
      const { extract } = await idp.parseLoginRequest(sp, 'redirect', { query: Object.fromEntries(url.searchParams) });
      const { context, entityEndpoint } = (await idp.createLoginResponse(
        sp,
        { extract },
        'post',
        { email: user },
        undefined,
        false,
        url.searchParams.get('RelayState') ?? undefined,
      )) as {
        context: string;
        entityEndpoint: string;
      };
      const relay = url.searchParams.get('RelayState');
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html lang="en"><body><form method="post" action="${entityEndpoint}"><input type="hidden" name="SAMLResponse" value="${context}">${relay ? `<input type="hidden" name="RelayState" value="${relay}">` : ''}</form><script>document.forms[0].submit()</script></body></html>`,
        );
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = samlify.IdentityProvider({
    entityID: `${origin}/saml`,
    privateKey: fixture('idp-key.pem'),
    signingCert: fixture('idp-cert.pem'),
    singleSignOnService: [{ Binding: REDIRECT, Location: `${origin}/sso` }],
    nameIDFormat: [EMAIL_FORMAT],
  });
  return {
    metadata: idp.getMetadata(),
    useSp: (metadata: string) => {
      sp = samlify.ServiceProvider({ metadata });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
