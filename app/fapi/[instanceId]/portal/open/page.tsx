import { titled } from '@/lib/page-metadata';
import { PortalOpen } from '@/components/portal/portal';

export const generateMetadata = titled('portal', 'title', { robots: { index: false } });

/** A portal link lands here: `#<token>` is exchanged for the session, once. */
export default function Page() {
  return <PortalOpen />;
}
