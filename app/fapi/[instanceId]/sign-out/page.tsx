import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignOutPage } from '@/components/auth/sign-out';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('signOut'), robots: { index: false } };
}

export default function Page() {
  return <SignOutPage />;
}
