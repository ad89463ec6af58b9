import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignInPage } from '@/components/auth/sign-in';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('signIn'), robots: { index: false } };
}

export default function Page() {
  return <SignInPage />;
}
