'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Card, CardBody, CardHeader, CopyButton, cn, focusRing } from '@/components/ui';
import { pages } from '@/lib/console/paths';
import { FRAMEWORKS, quickstart, type Framework, type Snippet } from '@/lib/console/quickstart';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';

/** Where each framework's extra step is done in the console (an OAuth application, the Clerk import's docs). */
const NEXT_STEP: Partial<Record<Framework, string>> = { oidc: 'oauth-applications', nextjs: 'settings', react: 'settings' };

/**
 * The overview's quickstart: pick the kind of app, copy the environment block (this instance's
 * keys filled in) and the few lines that sign a user in. `secretKey`: one just created on this
 * page (shown once), filled into the block instead of the placeholder.
 */
export function Quickstart({ secretKey }: { secretKey: string | null }) {
  const t = useTranslations('console.quickstart');
  const { account } = useConsole();
  const instance = useInstance();
  const [framework, setFramework] = useState<Framework>('nextjs');
  const [apiUrl, setApiUrl] = useState('');
  useEffect(() => setApiUrl(window.location.origin), []);
  const q = quickstart(framework, {
    publishableKey: instance.publishable_key,
    fapiUrl: instance.fapi_url,
    apiUrl,
    secretKey,
    instanceId: instance.id,
  });
  const next = NEXT_STEP[framework];

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody className="flex flex-col gap-5">
        <div role="group" aria-label={t('framework')} className="flex flex-wrap gap-2">
          {FRAMEWORKS.map((f) => (
            <button
              key={f}
              type="button"
              aria-pressed={framework === f}
              onClick={() => setFramework(f)}
              className={cn(
                'rounded-md px-3 py-1.5 text-sm font-medium ring-1 ring-inset',
                focusRing,
                framework === f
                  ? 'bg-indigo-600 text-white ring-indigo-600'
                  : 'bg-white text-zinc-700 ring-zinc-300 hover:bg-zinc-50 dark:bg-zinc-900 dark:text-zinc-200 dark:ring-zinc-700 dark:hover:bg-zinc-800',
              )}
            >
              {t(`frameworks.${f}`)}
            </button>
          ))}
        </div>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t(`intro.${framework}`)}</p>
        <ol className="flex flex-col gap-5">
          {q.install && (
            <Step n={1} title={t('install')}>
              <Code snippet={{ file: 'terminal', code: q.install }} label={t('install')} />
            </Step>
          )}
          <Step n={q.install ? 2 : 1} title={t('env', { file: q.env.file })}>
            <Code snippet={q.env} label={t('env', { file: q.env.file })} />
            {!secretKey && q.env.code.includes('sk_test_…') && (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">{t('secretHint')}</p>
            )}
          </Step>
          {q.snippets.map((s, i) => (
            <Step key={s.file} n={(q.install ? 3 : 2) + i} title={s.file === 'terminal' ? t('run') : s.file}>
              <Code snippet={s} label={s.file} />
            </Step>
          ))}
        </ol>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {t(`then.${framework}`)}{' '}
          {next && (
            <Link
              href={pages.instance(account.id, instance.id, next)}
              className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
            >
              {t(`nextLink.${framework}`)}
            </Link>
          )}
        </p>
      </CardBody>
    </Card>
  );
}

function Step({ n, title, children }: { n: number; title: string; children: React.ReactNode }) {
  return (
    <li className="flex flex-col gap-2">
      <p className="text-sm font-medium">
        <span
          aria-hidden
          className="mr-2 inline-flex size-5 items-center justify-center rounded-full bg-indigo-100 text-xs text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
        >
          {n}
        </span>
        {title}
      </p>
      {children}
    </li>
  );
}

/** A block of code with its copy button. */
function Code({ snippet, label }: { snippet: Snippet; label: string }) {
  return (
    <div className="relative">
      <pre
        tabIndex={0}
        aria-label={label}
        className="overflow-x-auto rounded-md bg-zinc-950 p-3 pr-20 font-mono text-xs leading-relaxed text-zinc-100"
      >
        {snippet.code}
      </pre>
      <div className="absolute top-2 right-2">
        <CopyButton value={snippet.code} label={label} />
      </div>
    </div>
  );
}
