import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { ForgotPasswordPage } from '@/components/auth/forgot-password';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('forgotPassword'), robots: { index: false } };
}

export default function Page() {
  return <ForgotPasswordPage />;
}
