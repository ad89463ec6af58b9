import { auth, currentUser } from '@clerk/nextjs/server';

export default async function Dashboard() {
  const { userId, sessionId } = await auth();
  const user = await currentUser();
  return (
    <>
      <h1>Dashboard</h1>
      <dl>
        <dt>userId</dt>
        <dd data-testid="user-id">{userId}</dd>
        <dt>sessionId</dt>
        <dd data-testid="session-id">{sessionId}</dd>
        <dt>email</dt>
        <dd data-testid="email">{user?.primaryEmailAddress?.emailAddress}</dd>
        <dt>name</dt>
        <dd data-testid="name">{[user?.firstName, user?.lastName].filter(Boolean).join(' ')}</dd>
      </dl>
    </>
  );
}
