import { hostedTitled } from '@/lib/page-metadata';
import { OrganizationProfilePage } from '@/components/auth/organization-profile';

export const generateMetadata = hostedTitled('organization');

export default function Page() {
  return <OrganizationProfilePage />;
}
