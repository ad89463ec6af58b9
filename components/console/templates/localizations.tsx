'use client';

import { useLocale, useTranslations } from 'next-intl';
import { useMemo, useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  Checkbox,
  Field,
  Input,
  PageHeader,
  Select,
  Skeleton,
  Textarea,
  cn,
  focusRing,
} from '@/components/ui';
import { api } from '@/lib/console/paths';
import {
  callTemplates,
  localeName,
  ProblemsError,
  type CatalogResource,
  type Localization,
  type LocalizationContent,
  type LocalizationList,
  type Problem,
} from '@/lib/console/templates';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from '../console-context';
import { useInstance } from '../instance-context';
import { InlineError } from '../states';

/** The content fields of a resource kind, in order. */
const FIELDS = { email: ['subject', 'mjml', 'text'], sms: ['body'], hosted: ['text'] } as const;

/** `…/localizations`: pick a language and a resource, override its copy with the base copy beside it. */
export function Localizations() {
  const t = useTranslations('templates.localizations');
  const uiLocale = useLocale();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const url = `${api.instance(account.id, instance.id)}/localizations`;
  const list = useDashboard<LocalizationList>(url);
  // The instance's own language first (an operator overrides the copy their users read).
  const [locale, setLocale] = useState(instance.settings.default_locale || 'en');
  const [resourceKey, setResourceKey] = useState('email.verification_code');
  const [search, setSearch] = useState('');
  // Kept here: the form starts afresh after each save, and the message must outlive it.
  const [notice, setNotice] = useState<Notice | null>(null);
  const pick = (next: { locale?: string; resource?: string }) => {
    if (next.locale !== undefined) setLocale(next.locale);
    if (next.resource !== undefined) setResourceKey(next.resource);
    setNotice(null);
  };

  if (list.error) return <InlineError error={list.error} onRetry={list.reload} />;
  const data = list.data;
  const resource = data?.catalog.resources.find((r) => r.key === resourceKey);
  const override = data?.data.find((l) => l.resource === resourceKey && l.locale.toLowerCase() === locale.toLowerCase()) ?? null;

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description')} />
      {!data ? (
        <Skeleton className="h-40 w-full" />
      ) : (
        <>
          <div className="grid gap-4 sm:grid-cols-3">
            <Field label={t('language')}>
              {(p) => (
                <Select
                  {...p}
                  value={locale}
                  onChange={(e) => pick({ locale: e.target.value })}
                  options={data.catalog.supported_languages}
                  optionLabel={(l) =>
                    `${localeName(l, uiLocale)} (${l})${data.catalog.built_in_locales.includes(l) ? ` · ${t('builtIn')}` : ''}`
                  }
                />
              )}
            </Field>
            <Field label={t('search')} hint={t('searchHint', { count: data.catalog.resources.length })}>
              {(p) => <Input {...p} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="sign_in.title" />}
            </Field>
            <Field label={t('resource')}>
              {(p) => (
                <Select {...p} value={resourceKey} onChange={(e) => pick({ resource: e.target.value })}>
                  {(['email', 'sms', 'hosted'] as const).map((kind) => (
                    <optgroup key={kind} label={t(`kinds.${kind}`)}>
                      {data.catalog.resources
                        .filter(
                          (r) => r.kind === kind && (r.key === resourceKey || r.key.toLowerCase().includes(search.trim().toLowerCase())),
                        )
                        .map((r) => (
                          <option key={r.key} value={r.key}>
                            {r.key}
                            {data.data.some((l) => l.resource === r.key) ? ' •' : ''}
                          </option>
                        ))}
                    </optgroup>
                  ))}
                </Select>
              )}
            </Field>
          </div>
          {resource && (
            <OverrideForm
              key={`${resource.key}:${locale}:${override?.updated_at ?? 'none'}`}
              url={url}
              resource={resource}
              locale={locale}
              override={override}
              canWrite={canWrite}
              notice={notice}
              setNotice={setNotice}
            />
          )}
          <Card>
            <CardBody className="flex flex-col gap-2">
              <h2 className="text-sm font-semibold">{t('existing')}</h2>
              {data.data.length === 0 ? (
                <p className="text-sm text-zinc-500 dark:text-zinc-400">{t('none')}</p>
              ) : (
                <ul className="flex flex-col gap-1 text-sm">
                  {data.data.map((l) => (
                    <li key={l.id}>
                      <button
                        type="button"
                        className="flex items-center gap-2 hover:underline"
                        onClick={() => pick({ locale: l.locale, resource: l.resource })}
                      >
                        <code className="font-mono text-xs">{l.resource}</code>
                        <span>{localeName(l.locale, uiLocale)}</span>
                        <Badge tone={l.enabled ? 'indigo' : 'amber'}>{l.enabled ? t('enabled') : t('disabled')}</Badge>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
        </>
      )}
    </div>
  );
}

type Notice = { tone: 'success' | 'error'; text: string };

function OverrideForm({
  url,
  resource,
  locale,
  override,
  canWrite,
  notice,
  setNotice,
}: {
  url: string;
  resource: CatalogResource;
  locale: string;
  override: Localization | null;
  canWrite: boolean;
  notice: Notice | null;
  setNotice: (n: Notice | null) => void;
}) {
  const t = useTranslations('templates.localizations');
  const uiLocale = useLocale();
  const errorMessage = useErrorMessage();
  const invalidate = useInvalidate();
  const fields = FIELDS[resource.kind];
  const baseLocale = locale in resource.base ? locale : locale.split('-')[0]! in resource.base ? locale.split('-')[0]! : 'en';
  const baseCopy = (resource.base[baseLocale] ?? Object.values(resource.base)[0] ?? {}) as Record<string, string | null>;
  const initial = (override?.content ?? baseCopy) as Record<string, string | null>;
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f, initial[f] ?? ''])));
  const [enabled, setEnabled] = useState(override?.enabled ?? true);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);

  const content = useMemo((): LocalizationContent => {
    if (resource.kind === 'email')
      return { subject: values.subject ?? '', mjml: values.mjml ?? '', text: values.text?.trim() ? values.text : null };
    if (resource.kind === 'sms') return { body: values.body ?? '' };
    return { text: values.text ?? '' };
  }, [values, resource.kind]);

  async function act(action: () => Promise<unknown>, success: string) {
    setBusy(true);
    setNotice(null);
    setProblems([]);
    try {
      await action();
      setNotice({ tone: 'success', text: success });
      void invalidate(url);
    } catch (e) {
      if (e instanceof ProblemsError) setProblems(e.problems);
      setNotice({ tone: 'error', text: e instanceof ProblemsError ? t('invalid', { count: e.problems.length }) : errorMessage(e) });
    } finally {
      setBusy(false);
    }
  }

  const save = () => act(() => callTemplates('POST', url, { locale, resource: resource.key, content, enabled }), t('saved'));
  const remove = () => act(() => callTemplates('DELETE', `${url}/${override!.id}`), t('removed'));

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card>
        <CardBody className="flex flex-col gap-3">
          <h2 className="text-sm font-semibold">{t('base', { language: localeName(baseLocale, uiLocale) })}</h2>
          {fields.map((f) => (
            <div key={f} className="flex flex-col gap-1">
              <span className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t(`fields.${f}`)}</span>
              {/* Focusable, so a keyboard can scroll a long text (WCAG 2.1.1). */}
              <pre
                tabIndex={0}
                className={cn(
                  'max-h-72 overflow-auto whitespace-pre-wrap rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800',
                  focusRing,
                )}
              >
                {baseCopy[f] ?? '—'}
              </pre>
            </div>
          ))}
          {resource.variables.length > 0 && (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              {t('variables')}: {resource.variables.map((v) => (resource.kind === 'hosted' ? `{${v.name}}` : `{{${v.name}}}`)).join(', ')}
            </p>
          )}
        </CardBody>
      </Card>
      <Card>
        <CardBody className="flex flex-col gap-3">
          <h2 className="text-sm font-semibold">{t('override', { language: localeName(locale, uiLocale) })}</h2>
          {fields.map((f) => {
            const mine = problems.filter((p) => p.part === f || (f === 'body' && p.part === 'body'));
            return (
              <Field
                key={f}
                label={t(`fields.${f}`)}
                error={mine.map((p) => `${p.line}:${p.column} ${p.message}`).join(' · ') || undefined}
              >
                {(p) => (
                  <Textarea
                    {...p}
                    rows={f === 'mjml' ? 14 : f === 'subject' ? 2 : 5}
                    value={values[f] ?? ''}
                    readOnly={!canWrite}
                    onChange={(e) => setValues((v) => ({ ...v, [f]: e.target.value }))}
                  />
                )}
              </Field>
            );
          })}
          <Checkbox label={t('enabledLabel')} checked={enabled} disabled={!canWrite} onChange={(e) => setEnabled(e.target.checked)} />
          {notice && (
            <Alert tone={notice.tone === 'success' ? 'success' : 'error'}>
              <p>{notice.text}</p>
            </Alert>
          )}
          {canWrite && (
            <div className="flex flex-wrap gap-2">
              <Button onClick={save} loading={busy}>
                {t('save')}
              </Button>
              {override && (
                <Button variant="danger" onClick={remove} disabled={busy}>
                  {t('remove')}
                </Button>
              )}
            </div>
          )}
        </CardBody>
      </Card>
    </div>
  );
}
