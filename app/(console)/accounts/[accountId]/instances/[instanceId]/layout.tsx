import type { ReactNode } from 'react';
import { InstanceProvider } from '@/components/console/instance-context';

export default async function InstanceLayout({ params, children }: { params: Promise<{ instanceId: string }>; children: ReactNode }) {
  const { instanceId } = await params;
  return <InstanceProvider instanceId={instanceId}>{children}</InstanceProvider>;
}
