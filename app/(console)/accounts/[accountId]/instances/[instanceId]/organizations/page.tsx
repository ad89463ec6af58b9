import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { OrganizationsList } from '@/components/console/organizations-list';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('organizations.titles');
  return { title: t('organizations') };
}

export default function Page() {
  return <OrganizationsList />;
}
