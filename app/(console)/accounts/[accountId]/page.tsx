import { titled } from '@/lib/page-metadata';
import { AccountPage } from '@/components/console/account-page';

export const generateMetadata = titled('console.titles', 'account');

export default function Page() {
  return <AccountPage />;
}
