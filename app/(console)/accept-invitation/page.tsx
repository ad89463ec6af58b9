import { titled } from '@/lib/page-metadata';
import { AcceptInvitation } from '@/components/console/accept-invitation';

export const generateMetadata = titled('console.titles', 'acceptInvitation', { referrer: 'no-referrer' });

export default async function AcceptInvitationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await searchParams;
  return <AcceptInvitation token={typeof token === 'string' && token ? token : null} />;
}
