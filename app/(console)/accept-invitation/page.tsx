import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { AcceptInvitation } from '@/components/console/accept-invitation';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('acceptInvitation'), referrer: 'no-referrer' };
}

export default async function AcceptInvitationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await searchParams;
  return <AcceptInvitation token={typeof token === 'string' && token ? token : null} />;
}
