'use client';

import QRCode from 'qrcode';
import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState } from 'react';
import { Alert, Button, CopyButton, CopyField, Field, FormActions, Skeleton } from '@/components/ui';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { CodeInput } from './fields';
import { useHosted } from './hosted-context';
import { useFormErrors } from './use-form-errors';
import type { FapiResponse } from '@/lib/generated/fapi';

const FIELDS = ['code'] as const;

type Enrollment = FapiResponse<'POST /v1/me/totp'>;

/**
 * TOTP enrollment: starts it (POST /v1/me/totp), shows the otpauth URI as a QR code and
 * the secret for manual entry, and confirms it with a first code; hands the backup codes on.
 */
export function TotpEnrollment({ onEnabled, onCancel }: { onEnabled(backupCodes: string[]): void; onCancel?(): void }) {
  const t = useTranslations('hosted.totp');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const describe = useFapiError();
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [startError, setStartError] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(FIELDS);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    call<Enrollment>('/v1/me/totp', { method: 'POST' }).then(
      async (e) => {
        setEnrollment(e);
        setQr(await QRCode.toDataURL(e.uri, { margin: 1, width: 192, errorCorrectionLevel: 'M' }));
      },
      (e: unknown) => setStartError(describe(e).message),
    );
  }, [call, describe]);

  const confirm = handleSubmit(
    async () => {
      const res = await call<FapiResponse<'POST /v1/me/totp/attempt_verification'>>('/v1/me/totp/attempt_verification', { json: { code } });
      onEnabled(res.backup_codes);
    },
    { stayBusy: true, check: () => code.length !== 6 && { code: te('codeFormat') } },
  );

  if (startError) {
    return (
      <div className="flex flex-col gap-3">
        <Alert tone="error">{startError}</Alert>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            {t('cancel')}
          </Button>
        )}
      </div>
    );
  }

  return (
    <form onSubmit={confirm} noValidate className="flex flex-col gap-4">
      <ol className="flex list-decimal flex-col gap-1 pl-5 text-sm text-zinc-600 dark:text-zinc-400">
        <li>{t('step1')}</li>
        <li>{t('step2')}</li>
      </ol>
      <div className="flex justify-center">
        {qr ? (
          <img
            src={qr}
            alt={t('qrAlt')}
            width={192}
            height={192}
            className="rounded-lg bg-white p-1 ring-1 ring-zinc-200 dark:ring-zinc-700"
          />
        ) : (
          <Skeleton className="size-48 rounded-lg" />
        )}
      </div>
      <div className="flex flex-col gap-1.5">
        <p className="text-sm font-medium text-zinc-800 dark:text-zinc-200">{t('manualKey')}</p>
        {enrollment ? <CopyField value={enrollment.secret} label={t('manualKey')} /> : <Skeleton className="h-8 w-full rounded-md" />}
      </div>
      {formError && <Alert tone="error">{formError}</Alert>}
      <Field label={t('codeLabel')} error={fieldErrors.code}>
        {(p) => <CodeInput {...p} name="code" value={code} onChange={setCode} disabled={!enrollment} />}
      </Field>
      <FormActions>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            {t('cancel')}
          </Button>
        )}
        <Button type="submit" loading={busy} disabled={!enrollment}>
          {t('enable')}
        </Button>
      </FormActions>
    </form>
  );
}

/** Backup codes, shown once: copy them all or download them as a text file. */
export function BackupCodes({ codes, instanceName }: { codes: string[]; instanceName: string }) {
  const t = useTranslations('hosted.backupCodes');
  const text = codes.join('\n');
  function download() {
    const url = URL.createObjectURL(new Blob([`${instanceName}\n\n${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${instanceName.replace(/[^\w.-]+/g, '-').toLowerCase() || 'latchkey'}-backup-codes.txt`;
    a.click();
    URL.revokeObjectURL(url);
  }
  return (
    <div className="flex flex-col gap-3">
      <Alert tone="warning" title={t('title')}>
        {t('description')}
      </Alert>
      <ul aria-label={t('listLabel')} className="grid grid-cols-2 gap-2 rounded-lg bg-zinc-100 p-3 font-mono text-sm dark:bg-zinc-800">
        {codes.map((c) => (
          <li key={c} className="text-center tracking-wider">
            {c}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <CopyButton value={text} label={t('listLabel')} />
        <Button variant="secondary" size="sm" onClick={download}>
          {t('download')}
        </Button>
      </div>
    </div>
  );
}
