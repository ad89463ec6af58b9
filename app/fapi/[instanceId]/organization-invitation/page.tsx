import { hostedTitled } from '@/lib/page-metadata';
import { OrganizationInvitationPage } from '@/components/auth/organization-invitation';

export const generateMetadata = hostedTitled('organizationInvitation');

export default function Page() {
  return <OrganizationInvitationPage />;
}
