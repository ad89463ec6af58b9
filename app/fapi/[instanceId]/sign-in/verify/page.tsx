import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignInVerifyPage } from '@/components/auth/sign-in-steps';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('verify'), robots: { index: false } };
}

export default function Page() {
  return <SignInVerifyPage />;
}
