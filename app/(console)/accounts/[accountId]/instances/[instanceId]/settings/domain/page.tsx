import { CustomDomainSettings } from '@/components/console/custom-domain';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return (
    <SettingsDraft>
      <CustomDomainSettings />
    </SettingsDraft>
  );
}
