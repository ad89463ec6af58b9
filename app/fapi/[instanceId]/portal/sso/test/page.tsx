import { titled } from '@/lib/page-metadata';
import { PortalTestResult } from '@/components/portal/test-result';

export const generateMetadata = titled('portal', 'title', { robots: { index: false } });

/** Where Test connection's tab lands after the identity provider answered. */
export default function Page() {
  return <PortalTestResult />;
}
