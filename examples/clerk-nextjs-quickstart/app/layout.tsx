import { ClerkProvider, Show, SignInButton, UserButton } from '@clerk/nextjs';
import type { Metadata } from 'next';
import type { ReactNode } from 'react';

export const metadata: Metadata = { title: 'Clerk Next.js quickstart' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <ClerkProvider signInUrl="/sign-in">
          <header style={{ display: 'flex', justifyContent: 'flex-end', gap: 16, padding: 16 }}>
            <Show when="signed-out">
              <SignInButton />
            </Show>
            <Show when="signed-in">
              <UserButton />
            </Show>
          </header>
          <main style={{ padding: 16 }}>{children}</main>
        </ClerkProvider>
      </body>
    </html>
  );
}
