import { and, desc, eq, gt, inArray } from 'drizzle-orm';
import { sessions, signInAttempts, signUpAttempts } from '../../../db/schema';
import { factorVerificationAge } from '../../../sessions/factor-verification';
import { secondFactorOf } from '../../../sessions/statements';
import type { Deps } from '../../../deps';
import type { InstanceContext } from '../../../instances/instances';
import { signInView } from '../../../auth/sign-ins';
import { signUpView } from '../../../auth/sign-ups';
import { clientView, type ClientRow } from '../../../sessions/clients';
import { meView } from '../../../users/me';
import { listPasskeys } from '../../../passkeys/passkeys';
import { membershipView, membershipsWithUsers } from '../../../organizations/memberships';
import { clerkSession, clerkSignIn, clerkSignUp } from './shapes';

type D = Pick<Deps, 'db' | 'clock'>;

/** The client's sign-in in progress (Clerk's `client.sign_in`): its newest live attempt that is not complete. */
async function signInInProgress(deps: D, instance: InstanceContext, client: ClientRow) {
  const [row] = await deps.db
    .select()
    .from(signInAttempts)
    .where(
      and(
        eq(signInAttempts.clientId, client.id),
        eq(signInAttempts.instanceId, instance.id),
        gt(signInAttempts.abandonAt, deps.clock.now()),
      ),
    )
    .orderBy(desc(signInAttempts.id))
    .limit(1);
  if (!row || row.status === 'complete' || row.status === 'abandoned') return null;
  return clerkSignIn(await signInView(deps, row, instance.settings.sign_in_methods));
}

/** The client's sign-up in progress (Clerk's `client.sign_up`). */
async function signUpInProgress(deps: D, instance: InstanceContext, client: ClientRow) {
  const [row] = await deps.db
    .select()
    .from(signUpAttempts)
    .where(
      and(
        eq(signUpAttempts.clientId, client.id),
        eq(signUpAttempts.instanceId, instance.id),
        gt(signUpAttempts.abandonAt, deps.clock.now()),
      ),
    )
    .orderBy(desc(signUpAttempts.id))
    .limit(1);
  if (!row || row.status !== 'missing_requirements') return null;
  return clerkSignUp(await signUpView(deps, instance, row));
}

/** The user as `GET /v1/me` answers it, with the organizations they belong to and their passkeys (Clerk's user carries them). */
async function userWithMemberships(deps: D, instance: InstanceContext, userId: string): Promise<Record<string, unknown>> {
  const user = (await meView(deps, instance, userId)) as unknown as Record<string, unknown>;
  const rows = instance.settings.organizations_enabled ? await membershipsWithUsers(deps.db, instance.id, { userId, limit: 100 }) : [];
  const keys = instance.settings.sign_in_methods.passkey ? await listPasskeys(deps, instance.id, userId) : [];
  return { ...user, organization_memberships: rows.map(membershipView), passkeys: keys };
}

/** Each session's `factor_verification_age` (minutes since its first and second factor were proved). */
async function factorAges(deps: D, ids: string[]): Promise<Map<string, [number, number]>> {
  if (ids.length === 0) return new Map();
  const rows = await deps.db
    .select({
      id: sessions.id,
      createdAt: sessions.createdAt,
      firstFactorVerifiedAt: sessions.firstFactorVerifiedAt,
      secondFactorVerifiedAt: sessions.secondFactorVerifiedAt,
      actor: sessions.actor,
      withSecondFactor: secondFactorOf(sessions.userId),
    })
    .from(sessions)
    .where(inArray(sessions.id, ids));
  return new Map(rows.map((r) => [r.id, factorVerificationAge(r, r.withSecondFactor, deps.clock.now())]));
}

/**
 * Clerk's client: the live sessions each with its user, the sign-in and sign-up in progress,
 * the active session. clerk-js takes `clerk.session` and `clerk.user` from it. A session pending
 * on the second factor of a sign-in in progress is not one yet for Clerk (it makes the session
 * when the sign-in completes; clerk-js would take a pending one for a signed-in user with tasks
 * to do); one pending on a task (`setup_mfa`) is.
 */
export async function clerkClient(deps: D, instance: InstanceContext, client: ClientRow | null) {
  if (!client) return null;
  const view = await clientView(deps, instance, client);
  const live = view.sessions.filter((s) => s.status !== 'pending' || s.tasks.length > 0);
  const users = new Map<string, Record<string, unknown>>();
  for (const s of live) {
    if (!users.has(s.user_id)) users.set(s.user_id, await userWithMemberships(deps, instance, s.user_id));
  }
  const ages = await factorAges(
    deps,
    live.map((s) => s.id),
  );
  return {
    object: 'client' as const,
    id: client.id,
    sessions: live.map((s) => clerkSession(s, users.get(s.user_id) ?? null, null, ages.get(s.id) ?? null)),
    sign_in: await signInInProgress(deps, instance, client),
    sign_up: await signUpInProgress(deps, instance, client),
    last_active_session_id: (live.find((s) => s.id === view.last_active_session_id) ?? live[0])?.id ?? null,
    captcha_bypass: false,
    // Null: clerk-js would otherwise send a client near its expiry through Clerk's ITP "touch"
    // redirect (GET /v1/client/touch), which Latchkey does not serve.
    cookie_expires_at: null,
    created_at: client.createdAt,
    updated_at: client.updatedAt,
  };
}
