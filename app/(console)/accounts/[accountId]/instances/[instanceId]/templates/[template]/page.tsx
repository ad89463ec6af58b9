import { titled } from '@/lib/page-metadata';
import { TemplateEditor } from '@/components/console/templates/template-editor';

export const generateMetadata = titled('templates.titles', 'editor');

export default async function Page({ params }: { params: Promise<{ template: string }> }) {
  const { template } = await params;
  return <TemplateEditor name={template} />;
}
