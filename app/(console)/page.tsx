import { titled } from '@/lib/page-metadata';
import { Home } from '@/components/console/home';

export const generateMetadata = titled('console.titles', 'home');

export default async function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { new: createNew } = await searchParams;
  return <Home createNew={createNew !== undefined} />;
}
