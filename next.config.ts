import type { NextConfig } from 'next';
import createNextIntlPlugin from 'next-intl/plugin';

const withNextIntl = createNextIntlPlugin('./i18n/request.ts');

const nextConfig: NextConfig = {
  // Native or WASM packages the server loads at run time rather than bundling.
  serverExternalPackages: ['@electric-sql/pglite', 'argon2', 'pino', 'postgres', 'ioredis', 'prom-client', 'drizzle-orm'],
  poweredByHeader: false,
};

export default withNextIntl(nextConfig);
