import type { ReactNode } from 'react';
import { HostedProvider } from '@/components/auth/hosted-context';

/** Hosted end-user pages under an instance's fapi_url (sign-in, sign-up, profile…). */
export default async function HostedLayout({ children, params }: { children: ReactNode; params: Promise<{ instanceId: string }> }) {
  const { instanceId } = await params;
  return <HostedProvider instanceId={instanceId}>{children}</HostedProvider>;
}
