import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SetupMfaPage } from '@/components/auth/setup-mfa';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('setupMfa'), robots: { index: false } };
}

export default function Page() {
  return <SetupMfaPage />;
}
