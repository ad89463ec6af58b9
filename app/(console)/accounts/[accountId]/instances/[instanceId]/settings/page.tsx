import { InstanceNameCard } from '@/components/console/instance-general';
import { InstanceSettings } from '@/components/console/instance-settings';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

/** Settings › General: the instance's name, default language, allowed origins and redirect URLs. */
export default function Page() {
  return (
    <>
      <InstanceNameCard />
      <InstanceSettings section="general" />
    </>
  );
}
