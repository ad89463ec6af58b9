import { InstanceDangerZone } from '@/components/console/instance-general';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <InstanceDangerZone />;
}
