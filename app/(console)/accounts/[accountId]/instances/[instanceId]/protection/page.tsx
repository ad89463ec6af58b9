import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { ProtectionSettings } from '@/components/console/protection-settings';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('protection');
  return { title: t('title') };
}

export default function Page() {
  return <ProtectionSettings />;
}
