import { hostedTitled } from '@/lib/page-metadata';
import { SetupMfaPage } from '@/components/auth/setup-mfa';

export const generateMetadata = hostedTitled('setupMfa');

export default function Page() {
  return <SetupMfaPage />;
}
