import { hostedTitled } from '@/lib/page-metadata';
import { SocialReturnPage } from '@/components/auth/sign-in-steps';

export const generateMetadata = hostedTitled('ssoCallback');

export default function Page() {
  return <SocialReturnPage />;
}
