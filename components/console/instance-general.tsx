'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button, Card, CardBody, CardHeader, ConfirmDialog } from '@/components/ui';
import { api, pages } from '@/lib/console/paths';
import { mutate } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { RenameCard } from './rename-card';

/** The instance's name: admins rename it (Settings › General). */
export function InstanceNameCard() {
  const t = useTranslations('console.instanceGeneral');
  const { account, canWrite, reloadInstances } = useConsole();
  const instance = useInstance();
  return (
    <RenameCard
      title={t('nameTitle')}
      description={t('nameDescription')}
      label={t('name')}
      name={instance.name}
      path={api.instance(account.id, instance.id)}
      disabled={!canWrite}
      onSaved={reloadInstances}
    />
  );
}

/** Settings › Danger zone: owners delete the instance after typing its name; others are told who can. */
export function InstanceDangerZone() {
  const t = useTranslations('console.instanceGeneral');
  const tConfirm = useTranslations('console.confirm');
  const router = useRouter();
  const { account, isOwner, reloadInstances } = useConsole();
  const instance = useInstance();
  const [deleting, setDeleting] = useState(false);
  const path = api.instance(account.id, instance.id);
  return (
    <>
      <Card>
        <CardHeader
          title={t('deleteTitle')}
          description={t('deleteDescription')}
          actions={
            <Button variant="danger" onClick={() => setDeleting(true)} disabled={!isOwner}>
              {t('delete')}
            </Button>
          }
        />
        <CardBody className="text-sm text-zinc-600 dark:text-zinc-400">{t('deleteConsequences')}</CardBody>
      </Card>
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        title={t('deleteConfirmTitle', { name: instance.name })}
        description={t('deleteConsequences')}
        confirmLabel={t('delete')}
        confirmText={instance.name}
        confirmTextLabel={tConfirm('typeToConfirm', { text: instance.name })}
        onConfirm={async () => {
          await mutate('DELETE', path);
          reloadInstances();
          router.replace(pages.account(account.id));
        }}
      />
    </>
  );
}
