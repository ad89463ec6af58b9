import { hostedTitled } from '@/lib/page-metadata';
import { SignUpPage } from '@/components/auth/sign-up';

export const generateMetadata = hostedTitled('signUp');

export default function Page() {
  return <SignUpPage />;
}
