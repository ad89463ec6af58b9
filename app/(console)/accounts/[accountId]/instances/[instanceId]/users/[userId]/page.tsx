import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { UserDetail } from '@/components/console/user-detail';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('user') };
}

export default async function UserPage({ params }: { params: Promise<{ userId: string }> }) {
  const { userId } = await params;
  return <UserDetail userId={userId} />;
}
