import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { headers } from 'next/headers';
import { HostedProvider } from '@/components/auth/hosted-context';
import { CUSTOM_DOMAIN_INSTANCE_HEADER, hostedBase } from '@/lib/fapi/hosted-base';
import { applicationNameOf } from '@/server/instances/branding';
import { sharedRuntime } from '@/server/runtime';

/** Hosted pages are titled with the application's name (branding, else the instance's name), not Latchkey's. */
export async function generateMetadata({ params }: { params: Promise<{ instanceId: string }> }): Promise<Metadata> {
  const { instanceId } = await params;
  const name = await applicationNameOf((await sharedRuntime()).deps, instanceId);
  return name ? { title: { template: `%s · ${name}`, default: name } } : {};
}

/** Hosted end-user pages under an instance's fapi_url (sign-in, sign-up, profile…), at `/` on its custom domain. */
export default async function HostedLayout({ children, params }: { children: ReactNode; params: Promise<{ instanceId: string }> }) {
  const [{ instanceId }, h] = await Promise.all([params, headers()]);
  return (
    <HostedProvider instanceId={instanceId} base={hostedBase(instanceId, h.get(CUSTOM_DOMAIN_INSTANCE_HEADER))}>
      {children}
    </HostedProvider>
  );
}
