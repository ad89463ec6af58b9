import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Localizations } from '@/components/console/templates/localizations';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('templates.titles');
  return { title: t('localizations') };
}

export default function Page() {
  return <Localizations />;
}
