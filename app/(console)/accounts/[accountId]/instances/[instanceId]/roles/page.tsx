import { titled } from '@/lib/page-metadata';
import { RolesEditor } from '@/components/console/roles-editor';

export const generateMetadata = titled('organizations.titles', 'roles');

export default function Page() {
  return <RolesEditor />;
}
