import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { CustomDomainSettings } from '@/components/console/custom-domain';
import { InstanceSettings } from '@/components/console/instance-settings';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('settings') };
}

export default function Page() {
  return (
    <div className="flex flex-col gap-8">
      <InstanceSettings />
      <CustomDomainSettings />
    </div>
  );
}
