'use client';

import { useTranslations } from 'next-intl';
import { Button } from '@/components/ui';
import { IMAGE_UPLOAD_TYPES } from '@/lib/file-base64';
import type { Me } from '@/lib/fapi/types';
import { useImageUpload } from './use-image-upload';

/** The initials of the name; without one, the first letter of the username, else of the (primary) email address. */
function initials(me: Me): string {
  const named = (me.first_name?.[0] ?? '') + (me.last_name?.[0] ?? '');
  const email = (me.email_addresses.find((e) => e.id === me.primary_email_address_id) ?? me.email_addresses[0])?.email_address;
  return (named || me.username?.[0] || email?.[0] || '?').toUpperCase();
}

/** The profile photo: shown (else the initials), uploaded (POST /v1/me/profile_image) or removed. */
export function ProfilePhoto({ me, onSaved }: { me: Me; onSaved(me: Me): void }) {
  const t = useTranslations('hosted.profile');
  const { error, busy, upload, remove } = useImageUpload<Me>('/v1/me/profile_image', onSaved, {
    type: t('photoType'),
    size: t('photoSize'),
  });

  return (
    <section aria-label={t('photo')} className="flex flex-wrap items-center gap-4">
      {me.has_image && me.image_url ? (
        <img
          src={me.image_url}
          alt={t('photoAlt')}
          className="size-16 rounded-full border border-zinc-200 object-cover dark:border-zinc-700"
        />
      ) : (
        <span
          aria-hidden
          className="flex size-16 items-center justify-center rounded-full bg-zinc-200 text-xl font-semibold text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
        >
          {initials(me)}
        </span>
      )}
      <div className="flex flex-col gap-1">
        <label className="text-sm font-medium">
          {t('uploadPhoto')}
          <input type="file" accept={IMAGE_UPLOAD_TYPES.join(',')} onChange={upload} disabled={busy} className="mt-1 block text-sm" />
        </label>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">{t('photoHint')}</p>
        {me.has_image && (
          <Button size="sm" variant="ghost" className="self-start" disabled={busy} onClick={remove}>
            {t('removePhoto')}
          </Button>
        )}
      </div>
      {error && (
        <p role="alert" className="basis-full text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}
