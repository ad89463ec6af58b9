import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { InstanceOverview } from '@/components/console/instance-overview';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('instance') };
}

export default function Page() {
  return <InstanceOverview />;
}
