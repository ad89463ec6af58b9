import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { RolesEditor } from '@/components/console/roles-editor';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('organizations.titles');
  return { title: t('roles') };
}

export default function Page() {
  return <RolesEditor />;
}
