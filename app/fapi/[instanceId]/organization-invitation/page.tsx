import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { OrganizationInvitationPage } from '@/components/auth/organization-invitation';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('hosted.titles');
  return { title: t('organizationInvitation'), robots: { index: false } };
}

export default function Page() {
  return <OrganizationInvitationPage />;
}
