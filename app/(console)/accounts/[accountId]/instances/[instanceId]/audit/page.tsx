import { titled } from '@/lib/page-metadata';
import { AuditLog } from '@/components/console/audit-log';

export const generateMetadata = titled('console.titles', 'audit');

export default function Page() {
  return <AuditLog />;
}
