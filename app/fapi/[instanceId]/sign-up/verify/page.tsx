import { hostedTitled } from '@/lib/page-metadata';
import { SignUpVerifyPage } from '@/components/auth/sign-up';

export const generateMetadata = hostedTitled('verify');

export default function Page() {
  return <SignUpVerifyPage />;
}
