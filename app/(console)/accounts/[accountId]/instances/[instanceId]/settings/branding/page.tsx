import { BrandingSettings } from '@/components/console/branding-settings';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return (
    <SettingsDraft>
      <BrandingSettings />
    </SettingsDraft>
  );
}
