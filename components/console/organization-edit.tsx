'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Field, FormDialog, Input, Textarea } from '@/components/ui';
import type { Organization } from '@/lib/console/organizations';
import { mutate } from '@/lib/console/use-dashboard';
import { useFormError } from './use-form-error';

const FIELDS = ['name', 'slug', 'max_allowed_memberships', 'image_url', 'public_metadata', 'private_metadata'] as const;
type Field = (typeof FIELDS)[number];

/** A metadata textarea's JSON object, or the error to show under it. */
function parseObject(text: string): { value?: Record<string, unknown>; error?: boolean } {
  if (!text.trim()) return { value: {} };
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? { value: v as Record<string, unknown> } : { error: true };
  } catch {
    return { error: true };
  }
}

/** Edits an organization's name, slug, member limit, logo URL and metadata (PATCH; metadata replaced key by key, `null` deletes). */
export function EditOrganizationDialog({
  org,
  base,
  onClose,
  onSaved,
}: {
  org: Organization;
  base: string;
  onClose: () => void;
  onSaved: () => void;
}) {
  const t = useTranslations('organizations.edit');
  const form = useFormError(FIELDS);
  const [values, setValues] = useState({
    name: org.name,
    slug: org.slug,
    max_allowed_memberships: String(org.max_allowed_memberships),
    image_url: org.image_url ?? '',
    public_metadata: JSON.stringify(org.public_metadata, null, 2),
    private_metadata: JSON.stringify(org.private_metadata, null, 2),
  });
  const [local, setLocal] = useState<Partial<Record<Field, string>>>({});
  const set = (k: Field) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));
  const error = (k: Field) => local[k] ?? form.fieldError(k);

  /** Checks one field as it is left, so the error shows under it at once. */
  function check(k: Field): string | undefined {
    if (k === 'name' && !values.name.trim()) return t('required');
    if (k === 'max_allowed_memberships' && !/^\d+$/.test(values.max_allowed_memberships.trim())) return t('wholeNumber');
    if (k === 'image_url' && values.image_url.trim() && !/^https:\/\//.test(values.image_url.trim())) return t('httpsUrl');
    if ((k === 'public_metadata' || k === 'private_metadata') && parseObject(values[k]).error) return t('jsonObject');
    return undefined;
  }
  const blur = (k: Field) => () => setLocal((l) => ({ ...l, [k]: check(k) }));

  function submit(e: FormEvent) {
    e.preventDefault();
    const problems = Object.fromEntries(FIELDS.map((k) => [k, check(k)]).filter(([, v]) => v)) as Partial<Record<Field, string>>;
    setLocal(problems);
    if (Object.keys(problems).length === 0) void form.run(save);
  }

  async function save() {
    const pub = parseObject(values.public_metadata).value!;
    const priv = parseObject(values.private_metadata).value!;
    // Keys that were removed are sent as null: PATCH merges metadata.
    const removed = (before: Record<string, unknown>, after: Record<string, unknown>) =>
      Object.fromEntries(
        Object.keys(before)
          .filter((k) => !(k in after))
          .map((k) => [k, null]),
      );
    await mutate('PATCH', base, {
      name: values.name.trim(),
      slug: values.slug.trim(),
      max_allowed_memberships: Number(values.max_allowed_memberships),
      image_url: values.image_url.trim() || null,
      public_metadata: { ...removed(org.public_metadata, pub), ...pub },
      private_metadata: { ...removed(org.private_metadata, priv), ...priv },
    });
    onSaved();
  }

  return (
    <FormDialog open onClose={onClose} title={t('title')} onSubmit={submit} error={form.formError} submitLabel={t('save')} busy={form.busy}>
      <Field label={t('name')} error={error('name')}>
        {(p) => <Input {...p} value={values.name} onChange={set('name')} onBlur={blur('name')} autoFocus />}
      </Field>
      <Field label={t('slug')} error={error('slug')}>
        {(p) => <Input {...p} value={values.slug} onChange={set('slug')} onBlur={blur('slug')} spellCheck={false} />}
      </Field>
      <Field label={t('memberLimit')} hint={t('memberLimitHint')} error={error('max_allowed_memberships')}>
        {(p) => (
          <Input
            {...p}
            inputMode="numeric"
            value={values.max_allowed_memberships}
            onChange={set('max_allowed_memberships')}
            onBlur={blur('max_allowed_memberships')}
          />
        )}
      </Field>
      <Field label={t('logo')} hint={t('logoHint')} error={error('image_url')}>
        {(p) => (
          <Input
            {...p}
            type="url"
            value={values.image_url}
            onChange={set('image_url')}
            onBlur={blur('image_url')}
            placeholder="https://…"
          />
        )}
      </Field>
      <Field label={t('publicMetadata')} hint={t('publicMetadataHint')} error={error('public_metadata')}>
        {(p) => (
          <Textarea
            {...p}
            rows={3}
            value={values.public_metadata}
            onChange={set('public_metadata')}
            onBlur={blur('public_metadata')}
            spellCheck={false}
          />
        )}
      </Field>
      <Field label={t('privateMetadata')} hint={t('privateMetadataHint')} error={error('private_metadata')}>
        {(p) => (
          <Textarea
            {...p}
            rows={3}
            value={values.private_metadata}
            onChange={set('private_metadata')}
            onBlur={blur('private_metadata')}
            spellCheck={false}
          />
        )}
      </Field>
    </FormDialog>
  );
}
