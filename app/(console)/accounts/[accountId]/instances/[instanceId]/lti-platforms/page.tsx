import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { LtiPlatforms } from '@/components/console/lti-platforms';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('lti');
  return { title: t('title') };
}

export default function Page() {
  return <LtiPlatforms />;
}
