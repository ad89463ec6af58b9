/**
 * The overview's quickstart: for each kind of app, the packages to install, the environment
 * block with this instance's values, and the few lines that sign a user in. Code, not copy:
 * the explanations around it are in the message catalogs (console.quickstart).
 */
export const FRAMEWORKS = ['nextjs', 'react', 'express', 'oidc', 'clerk'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export type QuickstartValues = {
  publishableKey: string;
  fapiUrl: string;
  /** The console's origin: the backend API's base. */
  apiUrl: string;
  /** A secret key just created (shown once), else a placeholder. */
  secretKey: string | null;
  instanceId: string;
};

export type Snippet = { file: string; code: string };
export type Quickstart = { install: string | null; env: Snippet; snippets: Snippet[] };

const SECRET_PLACEHOLDER = 'sk_test_… (create one under Secret keys below)';

export function quickstart(framework: Framework, v: QuickstartValues): Quickstart {
  const secret = v.secretKey ?? SECRET_PLACEHOLDER;
  switch (framework) {
    case 'nextjs':
      return {
        install: 'npm install @latchkey/browser @latchkey/backend',
        env: {
          file: '.env.local',
          code: [
            `NEXT_PUBLIC_LATCHKEY_PUBLISHABLE_KEY=${v.publishableKey}`,
            `LATCHKEY_SECRET_KEY=${secret}`,
            `LATCHKEY_API_URL=${v.apiUrl}`,
          ].join('\n'),
        },
        snippets: [
          {
            file: 'app/providers.tsx',
            code: `'use client';
import { LatchkeyProvider } from '@latchkey/browser/react';

export function Providers({ children }: { children: React.ReactNode }) {
  return <LatchkeyProvider publishableKey={process.env.NEXT_PUBLIC_LATCHKEY_PUBLISHABLE_KEY!}>{children}</LatchkeyProvider>;
}`,
          },
          {
            file: 'app/page.tsx',
            code: `'use client';
import { SignedIn, SignedOut, useLatchkey, useUser } from '@latchkey/browser/react';

export default function Home() {
  const latchkey = useLatchkey();
  const { user } = useUser();
  return (
    <>
      <SignedOut><button onClick={() => latchkey.redirectToSignIn()}>Sign in</button></SignedOut>
      <SignedIn>Signed in as {user?.id}</SignedIn>
    </>
  );
}`,
          },
          {
            file: 'middleware.ts',
            code: `import { createNextAuth } from '@latchkey/backend/next';

const latchkey = createNextAuth({ publishableKey: process.env.NEXT_PUBLIC_LATCHKEY_PUBLISHABLE_KEY, signInUrl: '${v.fapiUrl}/sign-in' });
export default latchkey.middleware({ protect: (url) => url.pathname.startsWith('/dashboard') });`,
          },
        ],
      };
    case 'react':
      return {
        install: 'npm install @latchkey/browser',
        env: { file: '.env', code: `VITE_LATCHKEY_PUBLISHABLE_KEY=${v.publishableKey}` },
        snippets: [
          {
            file: 'src/main.tsx',
            code: `import { createRoot } from 'react-dom/client';
import { LatchkeyProvider, SignedIn, SignedOut, useLatchkey, useUser } from '@latchkey/browser/react';

function App() {
  const latchkey = useLatchkey();
  const { user } = useUser();
  return (
    <>
      <SignedOut><button onClick={() => latchkey.redirectToSignIn()}>Sign in</button></SignedOut>
      <SignedIn>Signed in as {user?.id}</SignedIn>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <LatchkeyProvider publishableKey={import.meta.env.VITE_LATCHKEY_PUBLISHABLE_KEY}>
    <App />
  </LatchkeyProvider>,
);`,
          },
        ],
      };
    case 'express':
      return {
        install: 'npm install @latchkey/backend express',
        env: {
          file: '.env',
          code: [`LATCHKEY_PUBLISHABLE_KEY=${v.publishableKey}`, `LATCHKEY_SECRET_KEY=${secret}`, `LATCHKEY_API_URL=${v.apiUrl}`].join(
            '\n',
          ),
        },
        snippets: [
          {
            file: 'server.js',
            code: `import express from 'express';
import { latchkeyExpress } from '@latchkey/backend';

const app = express();
// 401 without a valid session token (Authorization: Bearer … or the __session cookie).
app.use('/api', latchkeyExpress({ publishableKey: process.env.LATCHKEY_PUBLISHABLE_KEY, requireAuth: true }));
app.get('/api/me', (req, res) => res.json({ userId: req.auth.auth.userId }));
app.listen(4000);`,
          },
        ],
      };
    case 'oidc':
      return {
        install: null,
        env: {
          file: '.env',
          code: [
            `OIDC_ISSUER=${v.fapiUrl}`,
            `OIDC_DISCOVERY_URL=${v.fapiUrl}/.well-known/openid-configuration`,
            'OIDC_CLIENT_ID=oa_… (create one under OAuth applications)',
            'OIDC_CLIENT_SECRET=…',
          ].join('\n'),
        },
        snippets: [
          {
            file: 'sign-in.ts',
            code: `import * as client from 'openid-client';

const config = await client.discovery(new URL(process.env.OIDC_ISSUER!), process.env.OIDC_CLIENT_ID!, process.env.OIDC_CLIENT_SECRET!);
const verifier = client.randomPKCECodeVerifier();
const url = client.buildAuthorizationUrl(config, {
  redirect_uri: 'https://app.example.com/callback',
  scope: 'openid email profile',
  code_challenge: await client.calculatePKCECodeChallenge(verifier),
  code_challenge_method: 'S256',
});
// Send the browser to url; on /callback: client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier })`,
          },
        ],
      };
    case 'clerk':
      return {
        install: null,
        env: {
          file: '.env.local',
          code: [
            `NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=${v.publishableKey}`,
            `NEXT_PUBLIC_CLERK_PROXY_URL=${v.fapiUrl}`,
            `CLERK_SECRET_KEY=${secret}`,
            `CLERK_API_URL=${v.apiUrl}`,
          ].join('\n'),
        },
        snippets: [
          {
            file: 'terminal',
            code: `# Your Clerk users and organizations, with their ids, from Clerk's API:
CLERK_SECRET_KEY=sk_live_… npm run cli -- import clerk --from-api --instance ${v.instanceId}`,
          },
        ],
      };
  }
}
