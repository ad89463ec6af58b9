import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignUpVerifyPage } from '@/components/auth/sign-up';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('verify'), robots: { index: false } };
}

export default function Page() {
  return <SignUpVerifyPage />;
}
