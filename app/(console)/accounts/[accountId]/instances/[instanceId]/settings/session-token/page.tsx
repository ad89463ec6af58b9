import { SessionTokenTemplate } from '@/components/console/session-token-template';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <SessionTokenTemplate />;
}
