import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { AuditLog } from '@/components/console/audit-log';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('audit') };
}

export default function Page() {
  return <AuditLog />;
}
