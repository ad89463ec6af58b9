import { and, asc, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { organizations, organizationSuggestions } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { instanceContext } from '../instances/instances';
import { addMembershipInTx, type MembershipView } from './memberships';
import { loadOrganization, publicOrganizationView } from './organization-view';
import { organizationViewOf } from './organizations';

/** Offers to join, made by automatic_suggestion domains (domains.ts); the user accepts them on the FAPI. */
type SuggestionRow = typeof organizationSuggestions.$inferSelect;

export const suggestionView = (s: SuggestionRow, organization: ReturnType<typeof publicOrganizationView>) => ({
  object: 'organization_suggestion' as const,
  id: s.id,
  status: s.status,
  public_organization_data: { id: organization.id, name: organization.name, slug: organization.slug, image_url: organization.image_url, has_image: organization.has_image },
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

export async function listUserSuggestions(deps: Pick<Deps, 'db'>, instanceId: string, userId: string) {
  const rows = await deps.db
    .select({ s: organizationSuggestions, org: organizations })
    .from(organizationSuggestions)
    .innerJoin(organizations, eq(organizations.id, organizationSuggestions.organizationId))
    .where(and(eq(organizationSuggestions.instanceId, instanceId), eq(organizationSuggestions.userId, userId), eq(organizationSuggestions.status, 'pending')))
    .orderBy(asc(organizationSuggestions.id))
    .limit(101);
  const data = [];
  for (const r of rows.slice(0, 100)) data.push(suggestionView(r.s, publicOrganizationView(await organizationViewOf(deps.db, r.org))));
  return { object: 'list' as const, data, has_more: rows.length > 100 };
}

/** Joins the suggested organization with the default role: organizationMembership.created. Another user's suggestion is 404. */
export async function acceptSuggestion(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, userId: string, id: string): Promise<MembershipView> {
  const role = (await instanceContext(deps, instanceId)).settings.organization_default_role;
  return deps.db.transaction(async (tx) => {
    const [s] = await tx
      .select()
      .from(organizationSuggestions)
      .where(and(eq(organizationSuggestions.id, id), eq(organizationSuggestions.instanceId, instanceId), eq(organizationSuggestions.userId, userId)))
      .for('update');
    if (!s) throw notFound('suggestion');
    if (s.status !== 'pending') throw new AppError('CONFLICT', { message: 'This suggestion was already accepted.', meta: { reason: 'suggestion_accepted' } });
    const org = await loadOrganization(tx, instanceId, s.organizationId, { lock: true });
    const membership = await addMembershipInTx({ db: tx, clock: deps.clock }, instanceId, org, { userId, role });
    await tx.update(organizationSuggestions).set({ status: 'accepted', updatedAt: deps.clock.now() }).where(eq(organizationSuggestions.id, id));
    return membership;
  });
}
