import { Suspense } from 'react';
import { titled } from '@/lib/page-metadata';
import { UsersList } from '@/components/console/users-list';

export const generateMetadata = titled('console.titles', 'users');

export default function Page() {
  // The list reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <UsersList />
    </Suspense>
  );
}
