import { hostedTitled } from '@/lib/page-metadata';
import { SignInVerifyPage } from '@/components/auth/sign-in-steps';

export const generateMetadata = hostedTitled('verify');

export default function Page() {
  return <SignInVerifyPage />;
}
