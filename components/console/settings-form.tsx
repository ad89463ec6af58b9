'use client';

import { useState, type ReactNode } from 'react';
import { Alert, Button } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstanceApi } from './instance-context';
import { useFormError } from './use-form-error';

/**
 * A settings card saved on its own: `save(body)` PATCHes …/settings with the card's fields,
 * reloads the instance (so every page sees the new settings) and says it saved; an error
 * naming one of `fields` goes under it, any other in the card's alert.
 */
export function useSettingsPatch(fields: readonly string[]) {
  const { reloadInstances } = useConsole();
  const base = useInstanceApi();
  const form = useFormError(fields);
  const [saved, setSaved] = useState(false);
  function save(body: Record<string, unknown>) {
    setSaved(false);
    void form.run(async () => {
      await mutate('PATCH', `${base}/settings`, body);
      reloadInstances();
      setSaved(true);
    });
  }
  return { form, saved, setSaved, save };
}

/** The form of such a card: its alerts, its fields, and the save button for those who may write. */
export function SettingsForm({
  settings,
  onSubmit,
  savedLabel,
  saveLabel,
  disabled,
  children,
}: {
  settings: ReturnType<typeof useSettingsPatch>;
  onSubmit: () => void;
  savedLabel: string;
  saveLabel: string;
  disabled?: boolean;
  children: ReactNode;
}) {
  const { canWrite } = useConsole();
  const { form, saved } = settings;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      noValidate
      className="flex flex-col gap-5"
    >
      {form.formError && <Alert tone="error">{form.formError}</Alert>}
      {saved && <Alert tone="success">{savedLabel}</Alert>}
      {children}
      {canWrite && (
        <div>
          <Button type="submit" loading={form.busy} disabled={disabled}>
            {saveLabel}
          </Button>
        </div>
      )}
    </form>
  );
}
