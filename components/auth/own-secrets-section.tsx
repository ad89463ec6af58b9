'use client';

import { useTranslations } from 'next-intl';
import { useState, type ReactNode } from 'react';
import {
  ActionCell,
  AsyncContent,
  Button,
  Card,
  CardHeader,
  ConfirmDialog,
  CopyField,
  EmptyState,
  Field,
  FormDialog,
  Input,
  Select,
  ShownOnceDialog,
  Skeleton,
  Table,
  Td,
  Thead,
  Tr,
} from '@/components/ui';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError, useList } from './hosted-list';
import { useFormErrors } from './use-form-errors';

export interface SecretColumn<S> {
  header: string;
  cell(secret: S): ReactNode;
  className?: string;
}

/**
 * A hosted profile card of secrets the user holds for themselves (personal access tokens, API keys):
 * the list, a create dialog that shows the new secret once, revoke. `ns` is the copy's namespace.
 */
export function OwnSecretsSection<S extends { id: string; name: string }>(props: {
  ns: string;
  list: { path: string; query?: Record<string, string> };
  revokePath(id: string): string;
  columns: SecretColumn<S>[];
  createDialog(done: { onClose(): void; onCreated(): void }): ReactNode;
}) {
  const t = useTranslations(props.ns);
  const { call, client } = useHosted();
  const describe = useFapiError();
  const { list, setList, error, load } = useList<S>(props.list.path, props.list.query);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<S | null>(null);

  async function revoke() {
    if (!revoking) return;
    await call(props.revokePath(revoking.id), { method: 'POST', json: {} });
    setList((l) => l?.filter((x) => x.id !== revoking.id) ?? null);
  }

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Button size="sm" onClick={() => setCreating(true)} disabled={!!client?.session?.impersonated_by}>
            {t('create')}
          </Button>
        }
      />
      <AsyncContent
        data={list}
        error={error && <SectionError message={error} />}
        loading={<Skeleton className="mx-5 my-4 h-10 rounded-md" />}
        empty={<EmptyState title={t('emptyTitle')} description={t('emptyDescription')} />}
      >
        {(secrets) => (
          <Table caption={t('title')}>
            <Thead columns={props.columns.map((c) => c.header)} actions={t('actions')} />
            <tbody>
              {secrets.map((secret) => (
                <Tr key={secret.id}>
                  {props.columns.map((c) => (
                    <Td key={c.header} className={c.className}>
                      {c.cell(secret)}
                    </Td>
                  ))}
                  <ActionCell aria-label={t('revokeLabel', { name: secret.name })} onClick={() => setRevoking(secret)}>
                    {t('revoke')}
                  </ActionCell>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncContent>
      {creating && props.createDialog({ onClose: () => setCreating(false), onCreated: load })}
      <ConfirmDialog
        open={revoking !== null}
        title={t('revokeTitle')}
        description={t('revokeBody', { name: revoking?.name ?? '' })}
        confirmLabel={t('revokeConfirm')}
        describeError={(e) => describe(e).message}
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}

const DAY = 86400;

/**
 * The create dialog of an `OwnSecretsSection`: a name, the fields `children` renders, an expiry among
 * `expiryDays` (never first); `create` posts and answers the new secret, which is then shown once.
 */
export function CreateOwnSecretDialog(props: {
  ns: string;
  fields: readonly string[];
  nameMaxLength: number;
  expiryDays: readonly number[];
  create(input: { name: string; expires_in_seconds?: number }): Promise<string>;
  onClose(): void;
  onCreated(): void;
  /** Fields between the name and the expiry, given the field errors. */
  children?(fieldErrors: Record<string, string>): ReactNode;
}) {
  const t = useTranslations(props.ns);
  const te = useTranslations('hosted.errors');
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(props.fields);
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('');
  const [secret, setSecret] = useState<string | null>(null);

  const submit = handleSubmit(
    async () => {
      setSecret(await props.create({ name: name.trim(), ...(expiry ? { expires_in_seconds: Number(expiry) * DAY } : {}) }));
      props.onCreated();
    },
    { check: () => !name.trim() && { name: te('required') } },
  );

  if (secret) {
    return (
      <ShownOnceDialog value={secret} onClose={props.onClose} title={t('createdTitle')} warning={t('createdOnce')} doneLabel={t('done')}>
        {(value) => <CopyField value={value} label={t('secretLabel')} />}
      </ShownOnceDialog>
    );
  }
  return (
    <FormDialog
      open
      onClose={props.onClose}
      title={t('createTitle')}
      onSubmit={submit}
      error={formError}
      submitLabel={t('createSubmit')}
      busy={busy}
    >
      <Field label={t('nameLabel')} hint={t('nameHint')} error={fieldErrors.name}>
        {(p) => (
          <Input {...p} name="name" autoFocus maxLength={props.nameMaxLength} value={name} onChange={(e) => setName(e.target.value)} />
        )}
      </Field>
      {props.children?.(fieldErrors)}
      <Field label={t('expiry')} error={fieldErrors.expires_in_seconds}>
        {(p) => (
          <Select {...p} name="expires_in_seconds" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            <option value="">{t('expiryOptions.never')}</option>
            {props.expiryDays.map((days) => (
              <option key={days} value={days}>
                {t(`expiryOptions.${days === 365 ? 'year' : `days${days}`}`)}
              </option>
            ))}
          </Select>
        )}
      </Field>
    </FormDialog>
  );
}
