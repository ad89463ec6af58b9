import { SmsSettingsPage } from '@/components/console/sms-settings';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <SmsSettingsPage />;
}
