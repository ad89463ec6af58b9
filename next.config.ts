import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const withNextIntl = createNextIntlPlugin('./i18n/request.ts');

const nextConfig: NextConfig = {
  // Native or WASM packages the server loads at run time rather than bundling.
  serverExternalPackages: ['@electric-sql/pglite', 'argon2', 'pino', 'postgres', 'ioredis', 'prom-client', 'drizzle-orm'],
  poweredByHeader: false,
  // Pages get theirs from proxy.ts (server/http/security-headers.ts); the static assets it skips, here.
  async headers() {
    return [{ source: '/_next/static/:path*', headers: [{ key: 'X-Content-Type-Options', value: 'nosniff' }] }];
  },
};

export default withNextIntl(nextConfig);
