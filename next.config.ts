import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const withNextIntl = createNextIntlPlugin('./i18n/request.ts');

const nextConfig: NextConfig = {
  // Native or WASM packages the server loads at run time rather than bundling.
  serverExternalPackages: ['@electric-sql/pglite', 'argon2', 'pino', 'postgres', 'ioredis', 'prom-client', 'drizzle-orm'],
  poweredByHeader: false,
  // Metadata is rendered in the head before the body for every client, not streamed after the first paint (Next's
  // default for browsers): the title is there from the first byte (screen readers, axe), and a page calling notFound()
  // answers 404 instead of a 200 whose body says "not found".
  htmlLimitedBots: /.*/,
  // Pages get theirs from proxy.ts (server/http/security-headers.ts); the static assets it skips, here.
  async headers() {
    return [{ source: '/_next/static/:path*', headers: [{ key: 'X-Content-Type-Options', value: 'nosniff' }] }];
  },
};

export default withNextIntl(nextConfig);
