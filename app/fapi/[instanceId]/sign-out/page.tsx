import { hostedTitled } from '@/lib/page-metadata';
import { SignOutPage } from '@/components/auth/sign-out';

export const generateMetadata = hostedTitled('signOut');

export default function Page() {
  return <SignOutPage />;
}
