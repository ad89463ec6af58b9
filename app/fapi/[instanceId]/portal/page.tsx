import { titled } from '@/lib/page-metadata';
import { PortalHome } from '@/components/portal/portal';

export const generateMetadata = titled('portal', 'title', { robots: { index: false } });

/** The admin portal of this browser's portal session (issue 49). */
export default function Page() {
  return <PortalHome />;
}
