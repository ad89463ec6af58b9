import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { ProfilePage } from '@/components/auth/profile';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('profile'), robots: { index: false } };
}

export default function Page() {
  return <ProfilePage />;
}
