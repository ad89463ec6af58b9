'use client';

import Link from 'next/link';
import { useLocale, useTranslations } from 'next-intl';
import { Badge, Card, PageHeader, Skeleton, Table, Td, Th, Tr } from '@/components/ui';
import { api, pages } from '@/lib/console/paths';
import { localeName, type TemplateState } from '@/lib/console/templates';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from '../console-context';
import { useInstance } from '../instance-context';
import { InlineError } from '../states';
import type { InstanceResponse } from '@/lib/console/types';

export const STATE_TONE: Record<TemplateState, 'neutral' | 'indigo' | 'amber'> = {
  built_in: 'neutral',
  overridden: 'indigo',
  disabled: 'amber',
};

/** `…/templates`: every email template with its state and its overrides per language. */
export function TemplatesList() {
  const t = useTranslations('templates');
  const locale = useLocale();
  const { account } = useConsole();
  const instance = useInstance();
  const list = useDashboard<InstanceResponse<'GET /email_templates'>>(`${api.instance(account.id, instance.id)}/email_templates`);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('list.title')}
        description={t('list.description')}
        actions={
          <Link
            href={pages.instance(account.id, instance.id, 'localizations')}
            className="text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t('list.localizationsLink')}
          </Link>
        }
      />
      <Card className="overflow-hidden">
        {list.error ? (
          <InlineError error={list.error} onRetry={list.reload} />
        ) : (
          <Table>
            <thead>
              <tr>
                <Th>{t('list.template')}</Th>
                <Th>{t('list.state')}</Th>
                <Th>{t('list.overrides')}</Th>
              </tr>
            </thead>
            <tbody>
              {!list.data
                ? Array.from({ length: 4 }, (_, i) => (
                    <Tr key={i}>
                      <Td>
                        <Skeleton className="h-4 w-48" />
                      </Td>
                      <Td>
                        <Skeleton className="h-4 w-20" />
                      </Td>
                      <Td>
                        <Skeleton className="h-4 w-24" />
                      </Td>
                    </Tr>
                  ))
                : list.data.data.map((tpl) => (
                    <Tr key={tpl.name}>
                      <Td>
                        <Link
                          href={`${pages.instance(account.id, instance.id, 'templates')}/${tpl.name}`}
                          className="font-medium text-indigo-600 hover:underline dark:text-indigo-400"
                        >
                          {t(`names.${tpl.name}`)}
                        </Link>
                        <p className="text-xs text-zinc-500 dark:text-zinc-400">{tpl.description}</p>
                      </Td>
                      <Td>
                        <Badge tone={STATE_TONE[tpl.state]}>{t(`states.${tpl.state}`)}</Badge>
                      </Td>
                      <Td>
                        <span className="flex flex-wrap gap-1">
                          {tpl.overrides.length === 0
                            ? '—'
                            : tpl.overrides.map((o) => (
                                <Badge key={o.id} tone={o.enabled ? 'indigo' : 'amber'}>
                                  {localeName(o.locale, locale)}
                                  {o.enabled ? '' : ` · ${t('states.disabled')}`}
                                </Badge>
                              ))}
                        </span>
                      </Td>
                    </Tr>
                  ))}
            </tbody>
          </Table>
        )}
      </Card>
    </div>
  );
}
