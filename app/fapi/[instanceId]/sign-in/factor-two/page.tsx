import { hostedTitled } from '@/lib/page-metadata';
import { FactorTwoPage } from '@/components/auth/sign-in-steps';

export const generateMetadata = hostedTitled('factorTwo');

export default function Page() {
  return <FactorTwoPage />;
}
