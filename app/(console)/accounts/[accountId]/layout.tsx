import type { ReactNode } from 'react';
import { ConsoleShell } from '@/components/console/console-shell';

export default async function AccountLayout({ params, children }: { params: Promise<{ accountId: string }>; children: ReactNode }) {
  const { accountId } = await params;
  return <ConsoleShell accountId={accountId}>{children}</ConsoleShell>;
}
