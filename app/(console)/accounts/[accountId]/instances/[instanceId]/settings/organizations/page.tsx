import { OrganizationSettings } from '@/components/console/organization-settings';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <OrganizationSettings />;
}
