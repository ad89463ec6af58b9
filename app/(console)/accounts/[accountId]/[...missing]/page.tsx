import { notFound } from 'next/navigation';

/** A console path no page answers: the console's own not-found, inside its frame (404). */
export default function Page() {
  notFound();
}
