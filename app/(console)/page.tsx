import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Home } from '@/components/console/home';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('home') };
}

export default async function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { new: createNew } = await searchParams;
  return <Home createNew={createNew !== undefined} />;
}
