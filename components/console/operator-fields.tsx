'use client';

import { Field, Input } from '@/components/ui';

type Change = (e: { target: { value: string } }) => void;

/** First and last name side by side (stacked on a phone), for a new operator. */
export function NameFields({
  labels,
  values,
  onChange,
  fieldError,
}: {
  labels: { firstName: string; lastName: string };
  values: { first_name: string; last_name: string };
  onChange: (key: 'first_name' | 'last_name') => Change;
  fieldError: (name: string) => string | undefined;
}) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <Field label={labels.firstName} error={fieldError('first_name')}>
        {(p) => <Input {...p} name="first_name" autoComplete="given-name" value={values.first_name} onChange={onChange('first_name')} />}
      </Field>
      <Field label={labels.lastName} error={fieldError('last_name')}>
        {(p) => <Input {...p} name="last_name" autoComplete="family-name" value={values.last_name} onChange={onChange('last_name')} />}
      </Field>
    </div>
  );
}

/** A new operator's password (at least 8 characters). */
export function NewPasswordField({
  label,
  hint,
  value,
  onChange,
  error,
}: {
  label: string;
  hint: string;
  value: string;
  onChange: Change;
  error?: string;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(p) => (
        <Input
          {...p}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={value}
          onChange={onChange}
        />
      )}
    </Field>
  );
}
