import { CustomDomainSettings } from '@/components/console/custom-domain';
import { titled } from '@/lib/page-metadata';
import { InstanceSettings } from '@/components/console/instance-settings';
import { SessionTokenTemplate } from '@/components/console/session-token-template';
import { OrganizationSettings } from '@/components/console/organization-settings';
import { PasswordPolicySettings } from '@/components/console/password-policy-settings';
import { SignInMethodsSettings } from '@/components/console/sign-in-methods';
import { BrandingSettings } from '@/components/console/branding-settings';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return (
    <div className="flex flex-col gap-8">
      <InstanceSettings />
      <BrandingSettings />
      <SignInMethodsSettings />
      <PasswordPolicySettings />
      <OrganizationSettings />
      <SessionTokenTemplate />
      <CustomDomainSettings />
    </div>
  );
}
