import { auth, currentUser } from '@clerk/nextjs/server';

export async function GET() {
  const { userId, sessionId } = await auth();
  if (!userId) return Response.json({ error: 'signed out' }, { status: 401 });
  const user = await currentUser();
  return Response.json({ userId, sessionId, email: user?.primaryEmailAddress?.emailAddress ?? null });
}
