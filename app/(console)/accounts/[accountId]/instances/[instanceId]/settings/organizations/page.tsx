import { OrganizationSettings } from '@/components/console/organization-settings';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return (
    <SettingsDraft>
      <OrganizationSettings />
    </SettingsDraft>
  );
}
