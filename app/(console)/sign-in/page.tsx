import { titled } from '@/lib/page-metadata';
import { SignInRedirect } from '@/components/console/sign-in-redirect';

export const generateMetadata = titled('console.titles', 'signIn');

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { redirect_url: redirectUrl, locale } = await searchParams;
  return (
    <SignInRedirect
      redirectUrl={typeof redirectUrl === 'string' ? redirectUrl : null}
      locale={typeof locale === 'string' ? locale : null}
    />
  );
}
