import { titled } from '@/lib/page-metadata';
import { UserDetail } from '@/components/console/user-detail';

export const generateMetadata = titled('console.titles', 'user');

export default async function UserPage({ params }: { params: Promise<{ userId: string }> }) {
  const { userId } = await params;
  return <UserDetail userId={userId} />;
}
