import { redirect } from 'next/navigation';

/** `{fapi_url}` itself: the hosted sign-in page, with the same parameters. */
export default async function HostedIndex({
  params,
  searchParams,
}: {
  params: Promise<{ instanceId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ instanceId }, query] = await Promise.all([params, searchParams]);
  const search = new URLSearchParams();
  for (const key of ['redirect_url', 'locale']) {
    const value = query[key];
    if (typeof value === 'string') search.set(key, value);
  }
  const qs = search.toString();
  redirect(`/fapi/${encodeURIComponent(instanceId)}/sign-in${qs ? `?${qs}` : ''}`);
}
