'use client';

import { useState } from 'react';
import { Alert } from '@/components/ui';
import { useErrorMessage } from '@/lib/use-error-message';

/**
 * Buttons each sending one request (retry, send a test, unban…): `busy` names the one
 * running; `alert` says how the last one went — the text its action returned, or its error.
 */
export function useActions<K extends string = string>() {
  const errorMessage = useErrorMessage();
  const [busy, setBusy] = useState<K | null>(null);
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  async function act(kind: K, action: () => Promise<string | void>) {
    setBusy(kind);
    setNotice(null);
    try {
      const text = await action();
      if (text) setNotice({ tone: 'success', text });
    } catch (e) {
      setNotice({ tone: 'error', text: errorMessage(e) });
    } finally {
      setBusy(null);
    }
  }
  return { busy, act, alert: notice && <Alert tone={notice.tone}>{notice.text}</Alert> };
}
