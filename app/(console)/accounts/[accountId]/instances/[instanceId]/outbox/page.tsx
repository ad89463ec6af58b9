import { titled } from '@/lib/page-metadata';
import { Outbox } from '@/components/console/outbox';

export const generateMetadata = titled('console.titles', 'outbox');

export default function Page() {
  return <Outbox />;
}
