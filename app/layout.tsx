import type { Metadata, Viewport } from 'next';
import { NextIntlClientProvider } from 'next-intl';
import { getLocale, getMessages } from 'next-intl/server';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { DataProvider } from '@/lib/query/provider';
import { THEME_BOOT_SCRIPT } from '@/components/ui/theme-toggle';
import { NONCE_HEADER } from '@/server/http/security-headers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Latchkey', template: '%s · Latchkey' },
  description: 'Self-hostable identity, sessions and organizations',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [locale, messages, requestHeaders] = await Promise.all([getLocale(), getMessages(), headers()]);
  // The page's CSP admits only scripts with this request's nonce (proxy.ts).
  const nonce = requestHeaders.get(NONCE_HEADER) ?? undefined;
  return (
    <html lang={locale} suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <NextIntlClientProvider locale={locale} messages={messages}>
          <DataProvider>{children}</DataProvider>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
