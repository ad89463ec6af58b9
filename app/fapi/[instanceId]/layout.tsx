import type { ReactNode } from 'react';
import { headers } from 'next/headers';
import { HostedProvider } from '@/components/auth/hosted-context';
import { CUSTOM_DOMAIN_INSTANCE_HEADER, hostedBase } from '@/lib/fapi/hosted-base';

/** Hosted end-user pages under an instance's fapi_url (sign-in, sign-up, profile…), at `/` on its custom domain. */
export default async function HostedLayout({ children, params }: { children: ReactNode; params: Promise<{ instanceId: string }> }) {
  const [{ instanceId }, h] = await Promise.all([params, headers()]);
  return (
    <HostedProvider instanceId={instanceId} base={hostedBase(instanceId, h.get(CUSTOM_DOMAIN_INSTANCE_HEADER))}>
      {children}
    </HostedProvider>
  );
}
