import { InstanceSettings } from '@/components/console/instance-settings';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

/** Settings › Sessions: lifetime, inactivity timeout, session token lifetime. */
export default function Page() {
  return (
    <SettingsDraft>
      <InstanceSettings section="sessions" />
    </SettingsDraft>
  );
}
