'use client';

import { useState, type ChangeEvent } from 'react';
import { fileBase64, IMAGE_UPLOAD_MAX_BYTES, IMAGE_UPLOAD_TYPES } from '@/lib/file-base64';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';

/**
 * An image the FAPI stores at `path` (POST the file as base64, DELETE to remove): the profile
 * photo and an organization's logo. The answer (the changed user or organization) goes to `onSaved`.
 */
export function useImageUpload<T>(path: string, onSaved: (saved: T) => unknown, refused: { type: string; size: string }) {
  const { call } = useHosted();
  const describe = useFapiError();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(change: () => Promise<T>) {
    setError(null);
    setBusy(true);
    try {
      await onSaved(await change());
    } catch (err) {
      setError(describe(err).message);
    } finally {
      setBusy(false);
    }
  }

  async function upload(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (!IMAGE_UPLOAD_TYPES.includes(file.type)) return setError(refused.type);
    if (file.size > IMAGE_UPLOAD_MAX_BYTES) return setError(refused.size);
    await run(async () => call<T>(path, { method: 'POST', json: { content_type: file.type, data: await fileBase64(file) } }));
  }

  const remove = () => run(() => call<T>(path, { method: 'DELETE' }));
  return { error, busy, upload, remove };
}
