import { titled } from '@/lib/page-metadata';
import { SetupForm } from '@/components/console/setup-form';

export const generateMetadata = titled('console.titles', 'setup', { referrer: 'no-referrer' });

export default async function SetupPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await searchParams;
  return <SetupForm token={typeof token === 'string' && token ? token : null} />;
}
