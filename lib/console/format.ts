'use client';

import { useFormatter, useTranslations } from 'next-intl';

/** Dates of the dashboard API and FAPI (ms since the epoch) in the reader's language. */
export function useDates() {
  const format = useFormatter();
  const t = useTranslations('common');
  return {
    dateTime: (ms: number | null | undefined) =>
      ms ? format.dateTime(new Date(ms), { dateStyle: 'medium', timeStyle: 'short' }) : t('never'),
    date: (ms: number | null | undefined) => (ms ? format.dateTime(new Date(ms), { dateStyle: 'medium' }) : t('never')),
    relative: (ms: number | null | undefined) => (ms ? format.relativeTime(new Date(ms), new Date()) : t('never')),
  };
}

export function displayName(user: { first_name: string | null; last_name: string | null; username?: string | null }): string | null {
  const full = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return full || user.username || null;
}

export function primaryEmail(user: {
  primary_email_address_id: string | null;
  email_addresses: Array<{ id: string; email_address: string }>;
}): string | null {
  return (user.email_addresses.find((e) => e.id === user.primary_email_address_id) ?? user.email_addresses[0])?.email_address ?? null;
}

/** Up to two initials for an avatar. */
export function initials(name: string | null, fallback: string | null): string {
  const source = name || fallback || '?';
  const parts = source.split(/[\s@._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts[1]?.[0] ?? '')).toUpperCase();
}
