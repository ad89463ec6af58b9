import Link from 'next/link';

export default function Home() {
  return (
    <>
      <h1>Clerk Next.js quickstart</h1>
      <p>
        <Link href="/dashboard">Dashboard</Link> (signed-in users only)
      </p>
    </>
  );
}
