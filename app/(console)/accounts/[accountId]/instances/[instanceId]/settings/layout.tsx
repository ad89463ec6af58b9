import type { ReactNode } from 'react';
import { SettingsSection } from '@/components/console/settings-section';

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return <SettingsSection>{children}</SettingsSection>;
}
