import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { OAuthApplications } from '@/components/console/oauth-applications';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('oauth.console');
  return { title: t('title') };
}

export default function Page() {
  return <OAuthApplications />;
}
