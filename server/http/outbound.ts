import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Config } from '../config';
import type { Deps } from '../deps';
import { AppError, validationError } from './errors';
import { checkTargetUrl, resolveTarget, type DnsResolver, type TargetPolicy, type TargetRefusal } from '../infra/ssrf';

/**
 * The policy of every outbound request to a URL a customer gave (webhooks, an LTI platform's
 * JWKS, a range API). Live instances: https and public addresses only. Test instances: http
 * too, and private or loopback addresses with ALLOW_PRIVATE_TARGETS (or its former name
 * ALLOW_PRIVATE_WEBHOOK_TARGETS).
 */
export const targetPolicy = (config: Pick<Config, 'ALLOW_PRIVATE_TARGETS'>, environment: 'test' | 'live'): TargetPolicy => ({
  allowPrivate: environment === 'test' && config.ALLOW_PRIVATE_TARGETS,
  requireHttps: environment === 'live',
});

/** What lets a test instance reach loopback and private addresses (never a live one). */
const ALLOW_PRIVATE_SETTING = 'ALLOW_PRIVATE_TARGETS=1';

/**
 * A refused target as a 422 on `param`, with the way forward when there is one: a test
 * instance may use a loopback or private address (a receiver on the developer's machine)
 * once the server runs with ALLOW_PRIVATE_TARGETS=1, named in the message and in
 * `meta.enable_with`; a live instance never may.
 */
export function refusalError(
  param: string,
  refusal: { reason: Exclude<TargetRefusal, 'unresolvable'>; message: string },
  environment: 'test' | 'live',
): AppError {
  if (refusal.reason !== 'private_address' || environment !== 'test') return validationError(param, refusal.reason, refusal.message);
  return new AppError('VALIDATION_FAILED', {
    message: `${refusal.message} Test instances may use one when the server runs with ${ALLOW_PRIVATE_SETTING}.`,
    meta: { param, reason: refusal.reason, enable_with: ALLOW_PRIVATE_SETTING },
  });
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The first `maxResponseBytes` of the body. */
  body: string;
}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  maxResponseBytes: number;
  policy: TargetPolicy;
  resolve: DnsResolver;
  /**
   * PEM certificates trusted instead of the system's roots. Only tests set it (through
   * Deps.testTrustedCas, which no configuration or environment variable reaches), to talk
   * to TLS servers on loopback.
   */
  testTrustedCas?: readonly string[];
}

/** What every outbound request takes from the deps: the resolver the SSRF guard checks, and a test's CAs. */
export const outboundNetwork = (deps: Pick<Deps, 'dns' | 'testTrustedCas'>) => ({ resolve: deps.dns, testTrustedCas: deps.testTrustedCas });

/** The socket connects to the already-checked address whatever name it asks for; Host and SNI keep the URL's name. */
const pinnedLookup = (target: { address: string; family: 4 | 6 }): LookupFunction =>
  ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [target]);
    else cb(null, target.address, target.family);
  }) as LookupFunction;

/**
 * One outbound request through the SSRF guard: the URL is checked, its host resolved and
 * every address checked, then the connection is pinned to the checked address. Redirects
 * are not followed; the whole exchange is bounded by `timeoutMs`.
 */
export async function guardedRequest(req: OutboundRequest): Promise<OutboundResponse> {
  const url = checkTargetUrl(req.url, req.policy);
  const target = await resolveTarget(url, req.policy, req.resolve);
  const tls = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<OutboundResponse>((resolve, reject) => {
    const r = (tls ? https : http).request(
      url,
      {
        method: req.method ?? 'POST',
        headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
        lookup: pinnedLookup(target),
        agent: false,
        // The certificate is checked against the URL's name, and SNI asks for it (none for an IP
        // literal), whatever Host header a caller sets; the socket still goes to the pinned address.
        ...(tls ? { servername: isIP(host) ? '' : host, ...(req.testTrustedCas ? { ca: [...req.testTrustedCas] } : {}) } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).subarray(0, req.maxResponseBytes).toString('utf8'),
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < req.maxResponseBytes) chunks.push(chunk);
          size += chunk.length;
          // Enough read: the rest of a large body is not worth waiting for.
          if (size >= req.maxResponseBytes) {
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => r.destroy(new OutboundTimeout(req.timeoutMs)), req.timeoutMs);
    r.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    r.end(req.body);
  });
}

export class OutboundTimeout extends Error {
  constructor(ms: number) {
    super(`No response within ${ms / 1000} s.`);
    this.name = 'OutboundTimeout';
  }
}
