import { titled } from '@/lib/page-metadata';
import { Webhooks } from '@/components/console/webhooks';

export const generateMetadata = titled('webhooks', 'title');

export default function Page() {
  return <Webhooks />;
}
