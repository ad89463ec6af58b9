import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { TemplatesList } from '@/components/console/templates/templates-list';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('templates.titles');
  return { title: t('templates') };
}

export default function Page() {
  return <TemplatesList />;
}
