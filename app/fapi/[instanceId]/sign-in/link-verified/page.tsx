import { hostedTitled } from '@/lib/page-metadata';
import { LinkVerifiedPage } from '@/components/auth/sign-in-steps';

export const generateMetadata = hostedTitled('linkVerified');

export default function Page() {
  return <LinkVerifiedPage />;
}
