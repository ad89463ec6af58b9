import { JwtTemplates } from '@/components/console/jwt-templates';
import { SessionTokenTemplate } from '@/components/console/session-token-template';
import { SettingsDraft } from '@/components/console/settings-draft';
import { titled } from '@/lib/page-metadata';

export const generateMetadata = titled('console.titles', 'settings');

export default function Page() {
  return (
    <div className="flex flex-col gap-6">
      <SettingsDraft>
        <SessionTokenTemplate />
      </SettingsDraft>
      <JwtTemplates />
    </div>
  );
}
