'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, CardBody, CardHeader, Field, Input } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';
import { useFormError } from './use-form-error';

/** A card that renames something (an account, an instance) with `PATCH path {name}`. */
export function RenameCard({
  title,
  description,
  label,
  name,
  path,
  disabled,
  onSaved,
}: {
  title: string;
  description: string;
  label: string;
  name: string;
  path: string;
  disabled: boolean;
  onSaved(): void;
}) {
  const t = useTranslations('console.rename');
  const form = useFormError(['name']);
  const [value, setValue] = useState(name);
  const [saved, setSaved] = useState(false);
  const [blank, setBlank] = useState(false);

  function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    setBlank(!value.trim());
    if (!value.trim()) return;
    void form.run(async () => {
      await mutate('PATCH', path, { name: value.trim() });
      setSaved(true);
      onSaved();
    });
  }

  return (
    <Card>
      <CardHeader title={title} description={description} />
      <CardBody>
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {saved && <Alert tone="success">{t('saved')}</Alert>}
          <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-start">
            <Field label={label} error={blank ? t('required') : form.fieldError('name')}>
              {(p) => (
                <Input
                  {...p}
                  name="name"
                  maxLength={256}
                  value={value}
                  disabled={disabled}
                  onChange={(e) => setValue(e.target.value)}
                  onBlur={() => setBlank(!value.trim())}
                />
              )}
            </Field>
            {!disabled && (
              <Button type="submit" loading={form.busy} className="sm:mt-[1.625rem]">
                {t('save')}
              </Button>
            )}
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
