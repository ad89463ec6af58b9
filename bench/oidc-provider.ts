/**
 * The reference for `npm run bench`'s OAuth rows: panva's oidc-provider (a devDependency)
 * serving client_credentials on PORT, issuing RS256 JWT access tokens (RFC 9068) like
 * Latchkey does, so both sign once per token. In-memory storage (its default adapter).
 * Client: bench / bench-secret-bench-secret-bench-secret.
 */
import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, importPKCS8 } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 4799);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = {
  ...(await exportJWK(await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'RS256', { extractable: true }))),
  kid: 'bench',
  alg: 'RS256',
  use: 'sig',
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'bench',
      client_secret: 'bench-secret-bench-secret-bench-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: 'api',
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['api'],
  ttl: { ClientCredentials: 900 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'https://api.example.com',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'api',
        audience: 'https://api.example.com',
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.listen(port, '127.0.0.1');
process.stderr.write(`oidc-provider listening on ${issuer}\n`);
