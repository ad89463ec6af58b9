import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Webhooks } from '@/components/console/webhooks';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('webhooks');
  return { title: t('title') };
}

export default function Page() {
  return <Webhooks />;
}
