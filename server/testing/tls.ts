import { webcrypto } from 'node:crypto';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/**
 * Test certificate authorities and TLS servers on loopback, for the outbound HTTPS path
 * (server/http/outbound.ts): a CA made per run, leaf certificates for chosen names, and a
 * server that records the SNI name each request came with.
 */

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;
const keyPair = async () => (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;

export interface LeafCertificate {
  certPem: string;
  keyPem: string;
}

export interface TestCa {
  /** The CA certificate, to trust (Deps.testTrustedCas). */
  certPem: string;
  /** A server certificate for these DNS names (and IP addresses), signed by this CA. */
  issue(names: string[]): Promise<LeafCertificate>;
}

export async function createTestCa(name = 'Latchkey Test CA'): Promise<TestCa> {
  const keys = await keyPair();
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + DAY_MS),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: ca.toString('pem'),
    async issue(names) {
      const leaf = await keyPair();
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${names[0]}`,
        issuer: ca.subject,
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + DAY_MS),
        signingAlgorithm: EC,
        publicKey: leaf.publicKey,
        signingKey: keys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(
            names.map((n) => (/^[\d.]+$|:/.test(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n })),
          ),
          await x509.AuthorityKeyIdentifierExtension.create(ca),
        ],
      });
      return { certPem: cert.toString('pem'), keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', leaf.privateKey)) };
    },
  };
}

interface TlsRequest {
  method: string;
  path: string;
  /** The name the client asked for in SNI (false when it sent none). */
  servername: string | false;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestTlsServer {
  port: number;
  /** Every request that got through the handshake. */
  received: TlsRequest[];
  /** Answers each request; 200 "ok" by default. */
  reply: (req: TlsRequest, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with `cert`, recording each request with its SNI name. */
export async function startTlsServer(cert: LeafCertificate): Promise<TestTlsServer> {
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: TlsRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        servername: (req.socket as TLSSocket).servername ?? false,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      out.received.push(got);
      out.reply(got, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const out: TestTlsServer = {
    port: (server.address() as AddressInfo).port,
    received: [],
    reply: (_req, res) => res.end('ok'),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return out;
}
