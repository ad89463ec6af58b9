import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { BillingPage } from '@/components/console/billing';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('billing.console');
  return { title: t('title') };
}

export default function Page() {
  return <BillingPage />;
}
