import { hostedTitled } from '@/lib/page-metadata';
import { CreateOrganizationPage } from '@/components/auth/organizations';

export const generateMetadata = hostedTitled('createOrganization');

export default function Page() {
  return <CreateOrganizationPage />;
}
