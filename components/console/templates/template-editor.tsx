'use client';

import { personLabel, usePeople } from '../person';
import { useLocale, useTranslations } from 'next-intl';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Alert, Badge, Button, Card, CardBody, Field, Input, PageHeader, Select, cn, focusRing } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import { useDates } from '@/lib/console/format';
import { api } from '@/lib/console/paths';
import {
  BUILT_IN_LOCALES,
  callTemplates,
  localeName,
  ProblemsError,
  type EmailContent,
  type EmailTemplateDetail,
  type Preview,
  type Problem,
  type Revision,
} from '@/lib/console/templates';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useErrorMessage } from '@/lib/use-error-message';
import { Breadcrumbs } from '../breadcrumbs';
import { useConsole } from '../console-context';
import { useInstance } from '../instance-context';
import { ErrorState } from '../states';
import { CodeEditor, type CodeEditorHandle } from './code-editor';
import { STATE_TONE } from './templates-list';
import type { InstanceResponse } from '@/lib/console/types';

type Part = 'subject' | 'mjml' | 'text';
type Draft = { subject: string; mjml: string; text: string };
const PREVIEW_DELAY_MS = 400;
const WIDTHS = { desktop: '100%', phone: '375px' } as const;

const draftOf = (c: EmailContent): Draft => ({ subject: c.subject, mjml: c.mjml, text: c.text ?? '' });
const bodyOf = (d: Draft) => ({ subject: d.subject, mjml: d.mjml, text: d.text.trim() ? d.text : null });

/** `…/templates/:template`: edit one email template in one language, with a live preview. */
export function TemplateEditor({ name }: { name: string }) {
  const t = useTranslations('templates');
  const uiLocale = useLocale();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/email_templates/${encodeURIComponent(name)}`;
  const defaultLocale = (instance.settings as { default_locale?: string }).default_locale ?? 'en';
  const [locale, setLocale] = useState(
    () => new URLSearchParams(typeof window === 'undefined' ? '' : window.location.search).get('locale') ?? defaultLocale,
  );
  const detail = useDashboard<EmailTemplateDetail>(`${base}?locale=${encodeURIComponent(locale)}`);
  const invalidate = useInvalidate();
  const revisions = useDashboard<InstanceResponse<'GET /email_templates/{template}/revisions'>>(
    `${base}/revisions?locale=${encodeURIComponent(locale)}&limit=20`,
  );
  // Kept here: the editor below starts afresh after each save, and the message must outlive it.
  const [notice, setNotice] = useState<Notice | null>(null);

  if (detail.error) return <ErrorState error={detail.error} onRetry={detail.reload} />;
  const locales = [...new Set([...BUILT_IN_LOCALES, defaultLocale, ...(detail.data?.overrides.map((o) => o.locale) ?? [])])];

  return (
    <div className="flex flex-col gap-6">
      <Breadcrumbs segment="templates" current={t(`names.${name}`)} />
      <PageHeader title={t(`names.${name}`)} description={detail.data?.description} />
      <div className="flex flex-wrap items-end gap-4">
        <div className="w-56">
          <Field label={t('editor.language')}>
            {(p) => (
              <Select
                {...p}
                value={locale}
                onChange={(e) => {
                  setLocale(e.target.value);
                  setNotice(null);
                }}
                options={locales}
                optionLabel={(l) => `${localeName(l, uiLocale)} (${l})`}
              />
            )}
          </Field>
        </div>
        {detail.data && (
          <p className="flex items-center gap-2 pb-2 text-sm">
            <Badge tone={detail.data.override ? (detail.data.override.enabled ? 'indigo' : 'amber') : STATE_TONE.built_in}>
              {detail.data.override ? t(detail.data.override.enabled ? 'states.overridden' : 'states.disabled') : t('states.built_in')}
            </Badge>
            <span className="text-zinc-500 dark:text-zinc-400">
              {t('editor.effective', {
                source: t(`editor.source.${detail.data.effective.source}`),
                locale: localeName(detail.data.effective.locale, uiLocale),
              })}
            </span>
          </p>
        )}
      </div>
      {detail.data ? (
        <EditorBody
          key={`${locale}:${detail.data.override?.updated_at ?? 'base'}`}
          baseUrl={base}
          detail={detail.data}
          canWrite={canWrite}
          onSaved={() => {
            void invalidate(base);
          }}
          revisions={revisions.data?.data}
          notice={notice}
          setNotice={setNotice}
        />
      ) : (
        <Card>
          <CardBody>…</CardBody>
        </Card>
      )}
    </div>
  );
}

type Notice = { tone: 'success' | 'error'; text: string };

function EditorBody({
  baseUrl,
  detail,
  canWrite,
  onSaved,
  revisions,
  notice,
  setNotice,
}: {
  baseUrl: string;
  detail: EmailTemplateDetail;
  canWrite: boolean;
  onSaved: () => void;
  revisions: Revision[] | undefined;
  notice: Notice | null;
  setNotice: (n: Notice | null) => void;
}) {
  const t = useTranslations('templates');
  const errorMessage = useErrorMessage();
  const dates = useDates();
  const people = usePeople(revisions?.map((r) => r.actor) ?? []);
  const [draft, setDraft] = useState<Draft>(() => draftOf(detail.override ? (detail.override.content as EmailContent) : detail.base));
  const [problems, setProblems] = useState<Problem[]>([]);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [width, setWidth] = useState<keyof typeof WIDTHS>('desktop');
  const [busy, setBusy] = useState<null | 'save' | 'reset' | 'test' | string>(null);
  const focused = useRef<Part>('mjml');
  // Where the cursor was in the subject, for inserting a variable there.
  const subjectCursor = useRef<{ start: number; end: number } | null>(null);
  const subjectInput = () => document.querySelector<HTMLInputElement>('input[data-part="subject"]');
  const mjmlRef = useRef<CodeEditorHandle>(null);
  const textRef = useRef<CodeEditorHandle>(null);

  // Live preview of the draft, after a short pause in typing; a problem list replaces it when invalid.
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => {
      callTemplates<Preview>('POST', `${baseUrl}/preview`, { locale: detail.locale, ...bodyOf(draft) }).then(
        (p) => {
          if (cancelled) return;
          setPreview(p);
          setProblems([]);
        },
        (e: unknown) => {
          if (cancelled) return;
          if (e instanceof ProblemsError) setProblems(e.problems);
          else setNotice({ tone: 'error', text: errorMessage(e) });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // errorMessage is a fresh function each render: the draft is what triggers a preview.
  }, [draft, baseUrl, detail.locale]);

  const problemsOf = useCallback((part: Part) => problems.filter((p) => p.part === part), [problems]);
  const set = (part: Part) => (value: string) => setDraft((d) => ({ ...d, [part]: value }));

  function insert(variable: string) {
    const token = `{{${variable}}}`;
    if (focused.current === 'subject') {
      const start = subjectCursor.current?.start ?? draft.subject.length;
      const end = subjectCursor.current?.end ?? start;
      setDraft((d) => ({ ...d, subject: d.subject.slice(0, start) + token + d.subject.slice(end) }));
      subjectCursor.current = { start: start + token.length, end: start + token.length };
      subjectInput()?.focus();
    } else (focused.current === 'text' ? textRef : mjmlRef).current?.insert(token);
  }

  /** Runs a write; its success message is the action's answer, else `success`. */
  async function run(kind: string, action: () => Promise<string | void>, success = '') {
    setBusy(kind);
    setNotice(null);
    try {
      const message = (await action()) || success;
      if (message) setNotice({ tone: 'success', text: message });
      return true;
    } catch (e) {
      if (e instanceof ProblemsError) {
        setProblems(e.problems);
        setNotice({ tone: 'error', text: t('editor.invalid', { count: e.problems.length }) });
      } else if (e instanceof ApiError && e.code === 'RATE_LIMITED') {
        setNotice({ tone: 'error', text: t('editor.testLimited', { seconds: e.retryAfter ?? 60 }) });
      } else setNotice({ tone: 'error', text: errorMessage(e) });
      return false;
    } finally {
      setBusy(null);
    }
  }

  const save = async () => {
    if (
      await run(
        'save',
        async () => void (await callTemplates('PUT', baseUrl, { locale: detail.locale, ...bodyOf(draft) })),
        t('editor.saved'),
      )
    )
      onSaved();
  };
  const reset = async () => {
    if (
      await run(
        'reset',
        async () => void (await callTemplates('DELETE', `${baseUrl}?locale=${encodeURIComponent(detail.locale)}`)),
        t('editor.resetDone'),
      )
    )
      onSaved();
  };
  const testSend = () =>
    run('test', async () => {
      const email = await callTemplates<InstanceResponse<'POST /email_templates/{template}/test_send'>>('POST', `${baseUrl}/test_send`, {
        locale: detail.locale,
        ...bodyOf(draft),
      });
      return t('editor.testSent', { to: email.to });
    });
  const restore = async (r: Revision) => {
    if (await run(r.id, async () => void (await callTemplates('POST', `${baseUrl}/revisions/${r.id}/restore`)), t('editor.restored')))
      onSaved();
  };

  const allProblems = useMemo(() => [...problems].sort((a, b) => a.part.localeCompare(b.part) || a.line - b.line), [problems]);
  const goTo = (p: Problem) => {
    if (p.part === 'subject') subjectInput()?.focus();
    else (p.part === 'text' ? textRef : mjmlRef).current?.goTo(p.line, p.column);
  };

  return (
    <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="flex min-w-0 flex-col gap-4">
        <Card>
          <CardBody className="flex flex-col gap-4">
            <Field label={t('editor.subject')} error={problemsOf('subject')[0]?.message}>
              {(p) => (
                <Input
                  {...p}
                  data-part="subject"
                  value={draft.subject}
                  readOnly={!canWrite}
                  onFocus={() => (focused.current = 'subject')}
                  onSelect={(e) =>
                    (subjectCursor.current = { start: e.currentTarget.selectionStart ?? 0, end: e.currentTarget.selectionEnd ?? 0 })
                  }
                  onChange={(e) => set('subject')(e.target.value)}
                  className="font-mono"
                />
              )}
            </Field>
            <PartEditor label={t('editor.mjml')} problems={problemsOf('mjml')}>
              <CodeEditor
                ref={mjmlRef}
                label={t('editor.mjml')}
                language="html"
                value={draft.mjml}
                onChange={set('mjml')}
                problems={problemsOf('mjml')}
                readOnly={!canWrite}
                onFocus={() => (focused.current = 'mjml')}
              />
            </PartEditor>
            <PartEditor label={t('editor.text')} hint={t('editor.textHint')} problems={problemsOf('text')}>
              <CodeEditor
                ref={textRef}
                label={t('editor.text')}
                language="text"
                value={draft.text}
                onChange={set('text')}
                problems={problemsOf('text')}
                readOnly={!canWrite}
                onFocus={() => (focused.current = 'text')}
              />
            </PartEditor>
            {allProblems.length > 0 && (
              <Alert tone="error" title={t('editor.problemsTitle', { count: allProblems.length })}>
                <ul className="flex flex-col gap-1" aria-label={t('editor.problemsTitle', { count: allProblems.length })}>
                  {allProblems.map((p, i) => (
                    <li key={i}>
                      <button
                        type="button"
                        className={cn('text-left underline-offset-2 hover:underline', focusRing)}
                        onClick={() => goTo(p)}
                      >
                        {t('editor.problemAt', { part: t(`editor.parts.${p.part}`), line: p.line, column: p.column })}: {p.message}
                      </button>
                    </li>
                  ))}
                </ul>
              </Alert>
            )}
            {notice && (
              <Alert tone={notice.tone === 'success' ? 'success' : 'error'}>
                <p role="status">{notice.text}</p>
              </Alert>
            )}
            {canWrite && (
              <div className="flex flex-wrap gap-2">
                <Button onClick={save} loading={busy === 'save'} disabled={busy !== null}>
                  {t('editor.save')}
                </Button>
                <Button variant="secondary" onClick={testSend} loading={busy === 'test'} disabled={busy !== null}>
                  {t('editor.testSend')}
                </Button>
                {detail.override && (
                  <Button variant="danger" onClick={reset} loading={busy === 'reset'} disabled={busy !== null}>
                    {t('editor.reset')}
                  </Button>
                )}
              </div>
            )}
          </CardBody>
        </Card>
        <Card>
          <CardBody className="flex flex-col gap-3">
            <h2 className="text-sm font-semibold">{t('editor.variables')}</h2>
            <ul className="flex flex-col gap-2">
              {detail.variables.map((v) => (
                <li key={v.name} className="flex items-start justify-between gap-3 text-sm">
                  <span className="min-w-0">
                    <code className="font-mono text-xs">{`{{${v.name}}}`}</code>{' '}
                    {v.required && <Badge tone="red">{t('editor.required')}</Badge>}
                    <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                      {v.description} — {t('editor.sample', { sample: String(v.sample) })}
                    </span>
                  </span>
                  {canWrite && (
                    <Button
                      size="sm"
                      variant="secondary"
                      onClick={() => insert(v.name)}
                      aria-label={t('editor.insertLabel', { name: v.name })}
                    >
                      {t('editor.insert')}
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          </CardBody>
        </Card>
      </div>
      <div className="flex min-w-0 flex-col gap-4">
        <Card>
          <CardBody className="flex flex-col gap-3">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h2 className="text-sm font-semibold">{t('editor.preview')}</h2>
              <div role="group" aria-label={t('editor.width')} className="flex gap-1 rounded-lg bg-zinc-100 p-1 dark:bg-zinc-900">
                {(Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]).map((w) => (
                  <button
                    key={w}
                    type="button"
                    aria-pressed={width === w}
                    onClick={() => setWidth(w)}
                    className={cn(
                      'rounded-md px-3 py-1 text-xs font-medium',
                      focusRing,
                      width === w ? 'bg-white shadow-sm dark:bg-zinc-800' : 'text-zinc-600',
                    )}
                  >
                    {t(`editor.widths.${w}`)}
                  </button>
                ))}
              </div>
            </div>
            {preview ? (
              <>
                <p className="text-sm">
                  <span className="text-zinc-500 dark:text-zinc-400">{t('editor.subject')}: </span>
                  <span data-testid="preview-subject">{preview.subject}</span>
                </p>
                <div className="flex justify-center overflow-x-auto rounded-md bg-zinc-100 p-2 dark:bg-zinc-900">
                  {/* No scripts, no same-origin: the draft cannot reach the console. */}
                  <iframe
                    title={t('editor.previewFrame')}
                    sandbox=""
                    srcDoc={preview.html}
                    style={{ width: WIDTHS[width] }}
                    className="h-[36rem] max-w-full rounded bg-white"
                  />
                </div>
                <details>
                  <summary className="cursor-pointer text-sm text-zinc-600">{t('editor.textPreview')}</summary>
                  <pre className="mt-2 max-h-72 overflow-auto whitespace-pre-wrap rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800">
                    {preview.text}
                  </pre>
                </details>
              </>
            ) : (
              <p className="text-sm text-zinc-500 dark:text-zinc-400">{t('editor.previewPending')}</p>
            )}
          </CardBody>
        </Card>
        <Card>
          <CardBody className="flex flex-col gap-3">
            <h2 className="text-sm font-semibold">{t('editor.revisions')}</h2>
            {!revisions || revisions.length === 0 ? (
              <p className="text-sm text-zinc-500 dark:text-zinc-400">{t('editor.noRevisions')}</p>
            ) : (
              <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
                {revisions.map((r, i) => (
                  <li key={r.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                    <span className="min-w-0">
                      <span className="block truncate font-mono text-xs">{(r.content as EmailContent).subject}</span>
                      <span className="text-xs text-zinc-500 dark:text-zinc-400">
                        {dates.dateTime(r.created_at)} · <span title={r.actor}>{personLabel(people, r.actor)}</span>
                        {i === 0 && detail.override ? ` · ${t('editor.current')}` : ''}
                      </span>
                    </span>
                    {canWrite && (
                      <Button size="sm" variant="secondary" onClick={() => restore(r)} loading={busy === r.id} disabled={busy !== null}>
                        {t('editor.restore')}
                      </Button>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </CardBody>
        </Card>
      </div>
    </div>
  );
}

function PartEditor({ label, hint, problems, children }: { label: string; hint?: string; problems: Problem[]; children: React.ReactNode }) {
  return (
    <div className="flex flex-col gap-1.5">
      <span className="text-sm font-medium text-zinc-800 dark:text-zinc-200">{label}</span>
      {children}
      {hint && <p className="text-xs text-zinc-500 dark:text-zinc-400">{hint}</p>}
      {problems.map((p, i) => (
        <p key={i} className="text-xs font-medium text-red-600 dark:text-red-400">
          {p.line}:{p.column} {p.message}
        </p>
      ))}
    </div>
  );
}
