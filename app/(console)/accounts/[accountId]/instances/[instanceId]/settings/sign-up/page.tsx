import { InstanceSettings } from '@/components/console/instance-settings';
import { PasswordPolicySettings } from '@/components/console/password-policy-settings';
import { SignInMethodsSettings } from '@/components/console/sign-in-methods';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

/** Settings › Sign-up and sign-in: who signs up with what, how they sign in, the password policy. */
export default function Page() {
  return (
    <SettingsDraft>
      <InstanceSettings section="signUp" />
      <SignInMethodsSettings />
      <PasswordPolicySettings />
    </SettingsDraft>
  );
}
