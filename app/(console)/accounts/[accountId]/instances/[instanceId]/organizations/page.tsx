import { titled } from '@/lib/page-metadata';
import { OrganizationsList } from '@/components/console/organizations-list';

export const generateMetadata = titled('organizations.titles', 'organizations');

export default function Page() {
  return <OrganizationsList />;
}
