'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Card, CardBody, CardHeader, Field, Textarea } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { useSettingsPart } from './settings-draft';
import type { InstanceResponse } from '@/lib/console/types';

const SHORTCODES = [
  ...[
    'first_name',
    'last_name',
    'full_name',
    'username',
    'primary_email_address',
    'email_verified',
    'public_metadata',
    'public_metadata.plan',
    'external_id',
    'id',
    'created_at',
  ].map((f) => `user.${f}`),
  // The session's active organization (null on the personal account).
  ...['id', 'name', 'slug', 'role', 'image_url', 'public_metadata'].map((f) => `org.${f}`),
  'org_membership.public_metadata',
];

type Preview = InstanceResponse<'POST /session_token/preview'>;

function parse(text: string): Record<string, unknown> | null {
  if (!text.trim()) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The session token template: extra claims with `{{user.…}}` shortcodes, shown as the JWT
 * payload of the newest user while it is typed (POST …/session_token/preview), saved with
 * PATCH …/settings.
 */
export function SessionTokenTemplate() {
  const t = useTranslations('console.sessionToken');
  const errorMessage = useErrorMessage();
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi();
  const savedText = JSON.stringify(instance.settings.session_token_claims ?? {}, null, 2);
  const [text, setText] = useState(savedText);
  const [jsonError, setJsonError] = useState<string | null>(null);
  // A part of the page's draft (SettingsDraft): the page's bar saves it; a change of spacing alone is no change.
  const part = useSettingsPart('session-token', {
    draft: text,
    saved: savedText,
    setDraft: (d) => {
      setText(d);
      setJsonError(null);
    },
    body: (d) => ({ session_token_claims: parse(d) ?? d }),
    validate: (d) => {
      const ok = parse(d) !== null;
      setJsonError(ok ? null : t('invalidJson'));
      return ok;
    },
    fields: ['session_token_claims'],
  });
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);

  // A live preview of what the template gives, a moment after typing stops.
  useEffect(() => {
    const template = parse(text);
    // Previewing runs the template on a real user's data: admins only, like saving it.
    if (!template || !canWrite) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      mutate<Preview>('POST', `${base}/session_token/preview`, { template }).then(
        (p) => {
          if (cancelled) return;
          setPreview(p);
          setPreviewError(null);
        },
        (e: unknown) => {
          if (!cancelled) setPreviewError(errorMessage(e));
        },
      );
    }, 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [text, base, errorMessage, canWrite]);

  const checkJson = () => setJsonError(parse(text) ? null : t('invalidJson'));

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <div className="grid gap-6 lg:grid-cols-2">
          <div className="flex min-w-0 flex-col gap-3">
            <Field label={t('template')} hint={t('templateHint')} error={jsonError ?? part.fieldError('session_token_claims')}>
              {(p) => (
                <Textarea
                  {...p}
                  rows={10}
                  value={text}
                  disabled={!canWrite}
                  spellCheck={false}
                  onChange={(e) => {
                    setText(e.target.value);
                    if (jsonError) setJsonError(null);
                  }}
                  onBlur={checkJson}
                />
              )}
            </Field>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              {t('shortcodes')} {SHORTCODES.map((s) => `{{${s}}}`).join(', ')}
            </p>
          </div>
          <div className="flex min-w-0 flex-col gap-2">
            <h3 className="text-sm font-medium">{t('preview')}</h3>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              {preview ? t('previewFor', { user: preview.user_id }) : t('previewHint')}
            </p>
            {previewError && <Alert tone="error">{previewError}</Alert>}
            {preview?.omitted && <Alert tone="warning">{t('omitted')}</Alert>}
            <pre
              tabIndex={0}
              aria-label={t('preview')}
              className="overflow-auto rounded-md bg-zinc-100 p-3 font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere] dark:bg-zinc-800"
            >
              {preview ? JSON.stringify(preview.payload, null, 2) : '…'}
            </pre>
          </div>
        </div>
      </CardBody>
    </Card>
  );
}
