import { titled } from '@/lib/page-metadata';
import { OrganizationDetail } from '@/components/console/organization-detail';

export const generateMetadata = titled('organizations.titles', 'organization');

export default async function OrganizationPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  return <OrganizationDetail orgId={orgId} />;
}
