import { InstanceNameCard } from '@/components/console/instance-general';
import { InstanceSettings } from '@/components/console/instance-settings';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

/** Settings › General: the instance's name, default language, allowed origins and redirect URLs. */
export default function Page() {
  return (
    <>
      <InstanceNameCard />
      <SettingsDraft>
        <InstanceSettings section="general" />
      </SettingsDraft>
    </>
  );
}
