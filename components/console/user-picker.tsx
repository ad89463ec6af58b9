'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Input, type ControlProps } from '@/components/ui';
import { api, query } from '@/lib/console/paths';
import type { InstanceResponse, User } from '@/lib/console/types';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';

const primaryEmail = (u: User) =>
  u.email_addresses.find((e) => e.id === u.primary_email_address_id)?.email_address ?? u.email_addresses[0]?.email_address ?? null;
const userLabel = (u: User) => [u.first_name, u.last_name].filter(Boolean).join(' ') || u.username || primaryEmail(u) || u.id;

/** Waits `ms` after the last change before answering the value. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * A combobox that finds a user of the instance by email, name or username (GET …/users?query=)
 * and answers the chosen user's id; an id typed or pasted as it is (`user_…`) is taken too.
 */
export function UserPicker({ control, value, onChange }: { control: ControlProps; value: string; onChange: (userId: string) => void }) {
  const t = useTranslations('console.userPicker');
  const { account } = useConsole();
  const instance = useInstance();
  const listId = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  // Closing on blur waits for a click on an option; focusing again cancels it.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = () => {
    clearTimeout(closing.current);
    setOpen(true);
  };
  const term = useDebounced(text.trim(), 200);
  const search = open && term.length >= 2 && !term.startsWith('user_');
  const found = useDashboard<InstanceResponse<'GET /users'>>(
    search ? `${api.instance(account.id, instance.id)}/users${query({ query: term, limit: 8 })}` : null,
  );
  const options = search ? (found.data?.data ?? []) : [];

  function choose(u: User) {
    onChange(u.id);
    setText(`${userLabel(u)}${primaryEmail(u) && userLabel(u) !== primaryEmail(u) ? ` <${primaryEmail(u)}>` : ''}`);
    setOpen(false);
  }
  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (!open || options.length === 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      choose(options[Math.min(active, options.length - 1)]!);
    } else if (e.key === 'Escape') setOpen(false);
  }

  return (
    <div className="relative">
      <Input
        {...control}
        role="combobox"
        aria-expanded={open && options.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && options[active] ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder={t('placeholder')}
        value={text}
        onChange={(e) => {
          const next = e.target.value;
          setText(next);
          setActive(0);
          show();
          onChange(next.trim().startsWith('user_') ? next.trim() : '');
        }}
        onFocus={show}
        onBlur={() => {
          closing.current = setTimeout(() => setOpen(false), 150);
        }}
        onKeyDown={onKeyDown}
      />
      {open && search && (
        <ul
          id={listId}
          role="listbox"
          aria-label={t('results')}
          className="absolute z-20 mt-1 max-h-72 w-full overflow-auto rounded-md border border-zinc-200 bg-white py-1 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {options.length === 0 ? (
            <li className="px-3 py-2 text-zinc-600 dark:text-zinc-400">{found.loading ? t('searching') : t('noMatch')}</li>
          ) : (
            options.map((u, i) => (
              <li
                key={u.id}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={u.id === value || i === active}
                className={`cursor-pointer px-3 py-2 ${i === active ? 'bg-indigo-50 dark:bg-indigo-950' : ''}`}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(u)}
              >
                <span className="block truncate font-medium">{userLabel(u)}</span>
                <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">{primaryEmail(u) ?? u.id}</span>
              </li>
            ))
          )}
        </ul>
      )}
    </div>
  );
}
