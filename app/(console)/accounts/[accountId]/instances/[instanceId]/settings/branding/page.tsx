import { BrandingSettings } from '@/components/console/branding-settings';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return <BrandingSettings />;
}
