import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SocialProviders } from '@/components/console/social-providers';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('social.console');
  return { title: t('title') };
}

export default function Page() {
  return <SocialProviders />;
}
