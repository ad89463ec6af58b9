import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeStripeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The form-encoded body, decoded. */
  form: Record<string, string>;
}

/**
 * A local stand-in for the Stripe API on loopback: records every request and answers
 * checkout and billing-portal sessions the way Stripe does (or `fail` with Stripe's error shape).
 */
export async function startFakeStripe() {
  const requests: FakeStripeRequest[] = [];
  const state = { fail: false, seq: 0 };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, form });
      res.setHeader('content-type', 'application/json');
      if (state.fail) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'No such price' } }));
        return;
      }
      const n = ++state.seq;
      if (req.url === '/v1/checkout/sessions') {
        res.end(JSON.stringify({ id: `cs_test_${n}`, object: 'checkout.session', url: `https://checkout.stripe.test/c/pay/cs_test_${n}` }));
      } else if (req.url === '/v1/billing_portal/sessions') {
        res.end(JSON.stringify({ id: `bps_${n}`, object: 'billing_portal.session', url: `https://billing.stripe.test/p/session/${n}` }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
