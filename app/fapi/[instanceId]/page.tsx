import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { CUSTOM_DOMAIN_INSTANCE_HEADER, hostedBase } from '@/lib/fapi/hosted-base';

/** `{fapi_url}` itself (`/` on a custom domain): the hosted sign-in page, with the same parameters. */
export default async function HostedIndex({
  params,
  searchParams,
}: {
  params: Promise<{ instanceId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ instanceId }, query, h] = await Promise.all([params, searchParams, headers()]);
  const search = new URLSearchParams();
  for (const key of ['redirect_url', 'locale']) {
    const value = query[key];
    if (typeof value === 'string') search.set(key, value);
  }
  const qs = search.toString();
  redirect(`${hostedBase(instanceId, h.get(CUSTOM_DOMAIN_INSTANCE_HEADER))}/sign-in${qs ? `?${qs}` : ''}`);
}
