import { titled } from '@/lib/page-metadata';
import { TemplatesList } from '@/components/console/templates/templates-list';

export const generateMetadata = titled('templates.titles', 'templates');

export default function Page() {
  return <TemplatesList />;
}
