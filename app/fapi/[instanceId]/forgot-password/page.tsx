import { hostedTitled } from '@/lib/page-metadata';
import { ForgotPasswordPage } from '@/components/auth/forgot-password';

export const generateMetadata = hostedTitled('forgotPassword');

export default function Page() {
  return <ForgotPasswordPage />;
}
