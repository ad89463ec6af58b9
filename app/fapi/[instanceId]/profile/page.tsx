import { hostedTitled } from '@/lib/page-metadata';
import { ProfilePage } from '@/components/auth/profile';

export const generateMetadata = hostedTitled('profile');

export default function Page() {
  return <ProfilePage />;
}
