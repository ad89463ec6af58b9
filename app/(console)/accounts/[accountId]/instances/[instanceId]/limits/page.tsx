import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Limits } from '@/components/console/limits';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('limits');
  return { title: t('title') };
}

export default function Page() {
  return <Limits />;
}
