import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { OrganizationDetail } from '@/components/console/organization-detail';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('organizations.titles');
  return { title: t('organization') };
}

export default async function OrganizationPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  return <OrganizationDetail orgId={orgId} />;
}
