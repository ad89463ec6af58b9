import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignUpPage } from '@/components/auth/sign-up';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('signUp'), robots: { index: false } };
}

export default function Page() {
  return <SignUpPage />;
}
