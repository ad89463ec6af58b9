import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { TemplateEditor } from '@/components/console/templates/template-editor';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('templates.titles');
  return { title: t('editor') };
}

export default async function Page({ params }: { params: Promise<{ template: string }> }) {
  const { template } = await params;
  return <TemplateEditor name={template} />;
}
