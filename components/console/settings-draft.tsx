'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, Button, ConfirmDialog } from '@/components/ui';
import type { Settings } from '@/lib/console/types';
import { errorParam, mutate } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { useInstanceApi } from './instance-context';
import { useFormError } from './use-form-error';

/**
 * One save model for a settings page: each card of the page is a *part* holding its own draft
 * of some instance settings. A part is dirty while its draft differs from the saved settings;
 * then a sticky bar says so and offers Discard and Save, which PATCHes every dirty part's
 * settings in one request (one per resource: `…/settings`, or a part's own such as
 * `…/sms_settings`). While anything is unsaved, leaving the page (a link of the console,
 * a reload, closing the tab) asks first.
 */
type Part = {
  /** The part's settings as the API takes them, or null when the part refuses its own draft (its error shown). */
  body: () => Record<string, unknown> | null;
  /** Back to the saved settings. */
  reset: () => void;
  /** The resource it PATCHes, under the instance's API path (`settings` unless the part names its own). */
  resource: string;
  /** After a save that included it (a part whose resource is not the instance's settings reloads its own). */
  afterSave?: () => void;
};

type DraftContext = {
  register(id: string, part: Part, dirty: boolean): void;
  unregister(id: string): void;
  form: ReturnType<typeof useFormError>;
};

const Context = createContext<DraftContext | null>(null);

/** Wraps a settings page whose cards use `useSettingsPart`. */
export function SettingsDraft({ children }: { children: ReactNode }) {
  const t = useTranslations('console.unsaved');
  const { canWrite, reloadInstances } = useConsole();
  const base = useInstanceApi();
  const router = useRouter();
  const parts = useRef(new Map<string, Part>());
  const [dirty, setDirty] = useState<ReadonlySet<string>>(new Set());
  const [saved, setSaved] = useState(false);
  const [leaving, setLeaving] = useState<string | null>(null);
  const form = useFormError([]);
  const errorMessage = useErrorMessage();
  const unsaved = dirty.size > 0;

  const register = useCallback((id: string, part: Part, isDirty: boolean) => {
    parts.current.set(id, part);
    setDirty((current) => {
      if (current.has(id) === isDirty) return current;
      const next = new Set(current);
      if (isDirty) next.add(id);
      else next.delete(id);
      return next;
    });
    if (isDirty) setSaved(false);
  }, []);
  const unregister = useCallback((id: string) => {
    parts.current.delete(id);
    setDirty((current) => {
      if (!current.has(id)) return current;
      const next = new Set(current);
      next.delete(id);
      return next;
    });
  }, []);

  function save() {
    const saving = [...dirty].flatMap((id) => parts.current.get(id) ?? []);
    const bodies = saving.map((part) => ({ part, body: part.body() }));
    if (bodies.some((b) => b.body === null)) return;
    const byResource = new Map<string, Record<string, unknown>>();
    for (const { part, body } of bodies) byResource.set(part.resource, { ...byResource.get(part.resource), ...body });
    void form.run(async () => {
      for (const [resource, body] of byResource) await mutate<Settings>('PATCH', `${base}/${resource}`, body);
      setSaved(true);
      reloadInstances();
      for (const part of saving) part.afterSave?.();
    });
  }
  function discard() {
    for (const id of dirty) parts.current.get(id)?.reset();
    form.clear();
  }

  // Leaving with unsaved changes: a reload or closing the tab asks the browser's question…
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [unsaved]);
  // …and a link of the console asks ours, before the router moves.
  useEffect(() => {
    if (!unsaved) return;
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!link || link.target === '_blank' || link.hasAttribute('download')) return;
      const url = new URL(link.href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      e.preventDefault();
      e.stopPropagation();
      setLeaving(url.pathname + url.search + url.hash);
    };
    document.addEventListener('click', onClick, true);
    return () => document.removeEventListener('click', onClick, true);
  }, [unsaved]);

  const value = useMemo(() => ({ register, unregister, form }), [register, unregister, form]);
  return (
    <Context.Provider value={value}>
      <div className="flex flex-col gap-8">
        {saved && !unsaved && <Alert tone="success">{t('saved')}</Alert>}
        {children}
      </div>
      {canWrite && unsaved && (
        <div
          role="region"
          aria-label={t('label')}
          className="sticky bottom-0 z-20 -mx-1 mt-6 flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 shadow-lg sm:flex-row sm:items-center dark:border-amber-800 dark:bg-amber-950"
        >
          <p className="flex-1 text-sm font-medium text-amber-950 dark:text-amber-100">{t('message')}</p>
          {form.error !== undefined && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {errorMessage(form.error)}
            </p>
          )}
          <div className="flex gap-2">
            <Button variant="secondary" onClick={discard} disabled={form.busy}>
              {t('discard')}
            </Button>
            <Button onClick={save} loading={form.busy}>
              {t('save')}
            </Button>
          </div>
        </div>
      )}
      <ConfirmDialog
        open={leaving !== null}
        onClose={() => setLeaving(null)}
        title={t('leaveTitle')}
        description={t('leaveDescription')}
        confirmLabel={t('leave')}
        onConfirm={async () => {
          const to = leaving!;
          discard();
          setLeaving(null);
          router.push(to);
        }}
      />
    </Context.Provider>
  );
}

/**
 * A card's part of the page's draft: `draft` is what the card shows, `saved` the same shape
 * from the saved settings, `body` the API's settings of a draft (pure: dirty is `body(draft)`
 * differing from `body(saved)`), `validate` the card's own checks before a save (false: it
 * shows why). Answers the last save's error when it names one of `fields`.
 */
export function useSettingsPart<D>(
  id: string,
  {
    draft,
    saved,
    setDraft,
    body,
    validate,
    fields,
    resource = 'settings',
    afterSave,
  }: {
    draft: D;
    saved: D;
    setDraft: (d: D) => void;
    body: (d: D) => Record<string, unknown>;
    validate?: (d: D) => boolean;
    fields: readonly string[];
    /** Another resource than the instance's settings (`sms_settings`); `body` is then its PATCH body. */
    resource?: string;
    afterSave?: () => void;
  },
) {
  const context = useContext(Context);
  if (!context) throw new Error('useSettingsPart outside SettingsDraft');
  const { register, unregister, form } = context;
  const errorMessage = useErrorMessage();
  const isDirty = JSON.stringify(body(draft)) !== JSON.stringify(body(saved));
  const latest = useRef({ draft, saved, setDraft, body, validate, afterSave });
  latest.current = { draft, saved, setDraft, body, validate, afterSave };
  useEffect(() => {
    register(
      id,
      {
        body: () => {
          const { draft: d, body: b, validate: v } = latest.current;
          return !v || v(d) ? b(d) : null;
        },
        reset: () => latest.current.setDraft(latest.current.saved),
        resource,
        afterSave: () => latest.current.afterSave?.(),
      },
      isDirty,
    );
  }, [id, isDirty, register, resource]);
  useEffect(() => () => unregister(id), [id, unregister]);
  const param = errorParam(form.error);
  const named = param !== undefined ? fields.find((f) => param === f || param.startsWith(`${f}.`)) : undefined;
  return {
    dirty: isDirty,
    /** The last save's error under `name`, when it is about that field. */
    fieldError: (name: string) => (named === name ? errorMessage(form.error) : undefined),
    error: form.error,
  };
}
