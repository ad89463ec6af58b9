import { titled } from '@/lib/page-metadata';
import { InstanceOverview } from '@/components/console/instance-overview';

export const generateMetadata = titled('console.titles', 'instance');

export default function Page() {
  return <InstanceOverview />;
}
