import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { WaitlistList } from '@/components/console/waitlist';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('waitlist.console');
  return { title: t('title') };
}

export default function Page() {
  return <WaitlistList />;
}
