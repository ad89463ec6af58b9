import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SetupForm } from '@/components/console/setup-form';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('setup'), referrer: 'no-referrer' };
}

export default async function SetupPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await searchParams;
  return <SetupForm token={typeof token === 'string' && token ? token : null} />;
}
