import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { ApiKeysList } from '@/components/console/api-keys';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('apikeys.console');
  return { title: t('title') };
}

export default function Page() {
  return <ApiKeysList />;
}
