import { and, desc, eq, gt, isNotNull, isNull } from 'drizzle-orm';
import type { Deps } from '../deps';
import { signInAttempts, socialFlows, socialProviders } from '../db/schema';

/**
 * Clerk's transfer of a social sign-in to a sign-up: a flow started with `new_user: "transfer"`
 * whose provider account has no user here leaves its sign-in attempt waiting, `transferable`,
 * with the verified identity kept (encrypted) on the flow until the same client's sign-up with
 * `transfer: true` (flow.ts, transferSocialSignIn) creates the user.
 */
type D = Pick<Deps, 'db' | 'clock'>;

/** A social provider's sign-in strategy: `oauth_` and its name. */
export const strategyOf = (name: string): `oauth_${string}` => `oauth_${name}`;

/** The flow whose sign-in attempt waits `transferable` (null when `attemptId` is none such). */
export async function transferableFlow(deps: D, instanceId: string, where: { attemptId: string } | { clientId: string }) {
  const [row] = await deps.db
    .select({ flow: socialFlows, attempt: signInAttempts })
    .from(socialFlows)
    .innerJoin(signInAttempts, eq(signInAttempts.id, socialFlows.signInId))
    .where(
      and(
        eq(socialFlows.instanceId, instanceId),
        'attemptId' in where ? eq(socialFlows.signInId, where.attemptId) : eq(socialFlows.clientId, where.clientId),
        eq(socialFlows.newUser, 'transfer'),
        isNotNull(socialFlows.identityEncrypted),
        gt(socialFlows.expiresAt, deps.clock.now()),
        isNull(signInAttempts.userId),
        eq(signInAttempts.status, 'needs_first_factor'),
      ),
    )
    .orderBy(desc(socialFlows.createdAt))
    .limit(1);
  return row ?? null;
}

/** A sign-in attempt's provider strategy when it waits `transferable` (the view shows it so), else null. */
export async function transferableStrategy(deps: D, attempt: { id: string; instanceId: string; userId: string | null; status: string }) {
  if (attempt.userId !== null || attempt.status !== 'needs_first_factor') return null;
  const row = await transferableFlow(deps, attempt.instanceId, { attemptId: attempt.id });
  if (!row) return null;
  const [provider] = await deps.db
    .select({ name: socialProviders.name })
    .from(socialProviders)
    .where(eq(socialProviders.id, row.flow.providerId));
  return provider ? strategyOf(provider.name) : null;
}
