import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { SignInRedirect } from '@/components/console/sign-in-redirect';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('console.titles');
  return { title: t('signIn') };
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { redirect_url: redirectUrl, locale } = await searchParams;
  return <SignInRedirect redirectUrl={typeof redirectUrl === 'string' ? redirectUrl : null} locale={typeof locale === 'string' ? locale : null} />;
}
