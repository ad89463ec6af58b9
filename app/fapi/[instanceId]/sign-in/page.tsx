import { hostedTitled } from '@/lib/page-metadata';
import { SignInPage } from '@/components/auth/sign-in';

export const generateMetadata = hostedTitled('signIn');

export default function Page() {
  return <SignInPage />;
}
