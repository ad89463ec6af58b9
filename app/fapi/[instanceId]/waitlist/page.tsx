import { titled } from '@/lib/page-metadata';
import { WaitlistPage } from '@/components/auth/waitlist';

export const generateMetadata = titled('waitlist.hosted', 'title', { robots: { index: false } });

export default function Page() {
  return <WaitlistPage />;
}
