import { titled } from '@/lib/page-metadata';
import { Localizations } from '@/components/console/templates/localizations';

export const generateMetadata = titled('templates.titles', 'localizations');

export default function Page() {
  return <Localizations />;
}
