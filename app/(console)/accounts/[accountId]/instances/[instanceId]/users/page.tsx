import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { UsersList } from '@/components/console/users-list';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('users') };
}

export default function Page() {
  return <UsersList />;
}
