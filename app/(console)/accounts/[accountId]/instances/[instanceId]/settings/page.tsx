import { titled } from '@/lib/page-metadata';
import { InstanceSettings } from '@/components/console/instance-settings';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <InstanceSettings />;
}
