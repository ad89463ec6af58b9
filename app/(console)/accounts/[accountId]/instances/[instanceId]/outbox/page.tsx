import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Outbox } from '@/components/console/outbox';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('outbox') };
}

export default function Page() {
  return <Outbox />;
}
