import { ErrorState } from '@/components/console/states';

export default function NotFound() {
  return <ErrorState notFound />;
}
