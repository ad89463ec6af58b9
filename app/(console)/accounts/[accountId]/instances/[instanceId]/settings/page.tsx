import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { InstanceSettings } from '@/components/console/instance-settings';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('settings') };
}

export default function Page() {
  return <InstanceSettings />;
}
