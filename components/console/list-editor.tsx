'use client';

import { useTranslations } from 'next-intl';
import { useId, useState } from 'react';
import { Button, Input } from '@/components/ui';

/**
 * Edits a list of strings (origins, URLs, addresses): each entry removable, a new one
 * added with Enter or the Add button. The error (e.g. the API's meta.param) shows below.
 */
export function ListEditor({
  label,
  hint,
  placeholder,
  values,
  onChange,
  error,
  disabled,
}: {
  label: string;
  hint?: string;
  placeholder?: string;
  values: string[];
  onChange: (values: string[]) => void;
  error?: string;
  disabled?: boolean;
}) {
  const t = useTranslations('console.listEditor');
  const id = useId();
  const [draft, setDraft] = useState('');

  function add() {
    const value = draft.trim();
    if (!value) return;
    if (!values.includes(value)) onChange([...values, value]);
    setDraft('');
  }

  return (
    <fieldset
      className="flex flex-col gap-2"
      aria-describedby={[hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}
    >
      <legend className="mb-1 text-sm font-medium text-zinc-800 dark:text-zinc-200">{label}</legend>
      {values.length > 0 && (
        <ul className="flex flex-col gap-1.5">
          {values.map((value, index) => (
            <li key={`${value}-${index}`} className="flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate rounded-md bg-zinc-100 px-3 py-2 font-mono text-xs dark:bg-zinc-800">{value}</code>
              <Button
                variant="ghost"
                size="sm"
                disabled={disabled}
                onClick={() => onChange(values.filter((_, i) => i !== index))}
                aria-label={t('remove', { value })}
              >
                {t('removeShort')}
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div className="flex gap-2">
        <Input
          aria-label={t('newEntry', { label })}
          aria-invalid={error ? true : undefined}
          value={draft}
          placeholder={placeholder}
          disabled={disabled}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <Button variant="secondary" onClick={add} disabled={disabled || !draft.trim()}>
          {t('add')}
        </Button>
      </div>
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </fieldset>
  );
}
