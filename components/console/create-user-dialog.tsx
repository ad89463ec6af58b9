'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Field, FormDialog, Input } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

const FIELDS = ['email_address', 'phone_number', 'username', 'password', 'first_name', 'last_name', 'identifier'] as const;
type Values = Record<(typeof FIELDS)[number], string>;

/** Creates a user from the console (POST …/users): identifiers given are verified, a password optional. */
export function CreateUserDialog({ base, onClose, onCreated }: { base: string; onClose: () => void; onCreated: (id: string) => void }) {
  const t = useTranslations('console.createUser');
  const form = useFormError(FIELDS);
  const [v, setV] = useState<Values>({
    email_address: '',
    phone_number: '',
    username: '',
    password: '',
    first_name: '',
    last_name: '',
    identifier: '',
  });
  const [local, setLocal] = useState<Partial<Values>>({});
  const set = (k: keyof Values) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  const err = (k: keyof Values) => local[k] || form.fieldError(k) || (k === 'email_address' ? form.fieldError('identifier') : undefined);
  const check = (k: keyof Values) => () => {
    const value = v[k].trim();
    const bad =
      (k === 'email_address' && value && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) ||
      (k === 'phone_number' && value && !/^\+[1-9]\d{6,14}$/.test(value)) ||
      (k === 'password' && v.password && v.password.length < 8);
    setLocal((l) => ({ ...l, [k]: bad ? t(`invalid.${k}` as 'invalid.email_address') : '' }));
  };

  const submit = form.handleSubmit(async () => {
    if (!v.email_address.trim() && !v.phone_number.trim() && !v.username.trim()) {
      setLocal({ email_address: t('identifierRequired') });
      return;
    }
    const body = {
      ...(v.email_address.trim() ? { email_address: [v.email_address.trim()] } : {}),
      ...(v.phone_number.trim() ? { phone_number: [v.phone_number.trim()] } : {}),
      ...(v.username.trim() ? { username: v.username.trim() } : {}),
      ...(v.password ? { password: v.password } : {}),
      ...(v.first_name.trim() ? { first_name: v.first_name.trim() } : {}),
      ...(v.last_name.trim() ? { last_name: v.last_name.trim() } : {}),
    };
    const created = await mutate<InstanceResponse<'POST /users'>>('POST', base, body);
    onCreated(created.id);
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('title')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('submit')}
      busy={form.busy}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('description')}</p>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={t('firstName')} error={err('first_name')}>
          {(p) => <Input {...p} value={v.first_name} onChange={set('first_name')} autoFocus />}
        </Field>
        <Field label={t('lastName')} error={err('last_name')}>
          {(p) => <Input {...p} value={v.last_name} onChange={set('last_name')} />}
        </Field>
      </div>
      <Field label={t('email')} error={err('email_address')}>
        {(p) => <Input {...p} type="email" value={v.email_address} onChange={set('email_address')} onBlur={check('email_address')} />}
      </Field>
      <Field label={t('phone')} hint={t('phoneHint')} error={err('phone_number')}>
        {(p) => <Input {...p} type="tel" value={v.phone_number} onChange={set('phone_number')} onBlur={check('phone_number')} />}
      </Field>
      <Field label={t('username')} error={err('username')}>
        {(p) => <Input {...p} value={v.username} onChange={set('username')} spellCheck={false} />}
      </Field>
      <Field label={t('password')} hint={t('passwordHint')} error={err('password')}>
        {(p) => (
          <Input
            {...p}
            type="password"
            autoComplete="new-password"
            value={v.password}
            onChange={set('password')}
            onBlur={check('password')}
          />
        )}
      </Field>
    </FormDialog>
  );
}
