import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Deps } from '../deps';
import { organizations, organizationSuggestions } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { requestMembershipInTx } from './membership-requests';
import { loadOrganization, publicOrganizationView } from './organization-view';
import { organizationViewOf } from './organizations';

/** Offers to join, made by automatic_suggestion domains (domains.ts); the user accepts them on the FAPI. */
type SuggestionRow = typeof organizationSuggestions.$inferSelect;

const suggestionView = (s: SuggestionRow, organization: ReturnType<typeof publicOrganizationView>) => ({
  object: 'organization_suggestion' as const,
  id: s.id,
  status: s.status,
  public_organization_data: {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    image_url: organization.image_url,
    has_image: organization.has_image,
  },
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

export type SuggestionStatus = SuggestionRow['status'];

/** The user's suggestions in these statuses (pending unless told: the accepted ones are requests to join awaiting an admin). */
export async function listUserSuggestions(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  userId: string,
  statuses: readonly SuggestionStatus[] = ['pending'],
) {
  const rows = await deps.db
    .select({ s: organizationSuggestions, org: organizations })
    .from(organizationSuggestions)
    .innerJoin(organizations, eq(organizations.id, organizationSuggestions.organizationId))
    .where(
      and(
        eq(organizationSuggestions.instanceId, instanceId),
        eq(organizationSuggestions.userId, userId),
        inArray(organizationSuggestions.status, [...statuses]),
      ),
    )
    .orderBy(asc(organizationSuggestions.id))
    .limit(101);
  const data = [];
  for (const r of rows.slice(0, 100)) data.push(suggestionView(r.s, publicOrganizationView(await organizationViewOf(deps.db, r.org))));
  return { object: 'list' as const, data, has_more: rows.length > 100 };
}

/**
 * Accepts a suggestion: the user asks the organization's admins to let them in (a membership
 * request, membership-requests.ts); they join once an admin accepts. Answers the suggestion,
 * accepted. Another user's suggestion is 404; an accepted one 409.
 */
export async function acceptSuggestion(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const [s] = await tx
      .select()
      .from(organizationSuggestions)
      .where(
        and(
          eq(organizationSuggestions.id, id),
          eq(organizationSuggestions.instanceId, instanceId),
          eq(organizationSuggestions.userId, userId),
        ),
      )
      .for('update');
    if (!s) throw notFound('suggestion');
    if (s.status !== 'pending')
      throw new AppError('CONFLICT', { message: 'This suggestion was already accepted.', meta: { reason: 'suggestion_accepted' } });
    const org = await loadOrganization(tx, instanceId, s.organizationId);
    await requestMembershipInTx({ db: tx, clock: deps.clock }, instanceId, org.id, userId);
    const now = deps.clock.now();
    await tx.update(organizationSuggestions).set({ status: 'accepted', updatedAt: now }).where(eq(organizationSuggestions.id, id));
    return suggestionView({ ...s, status: 'accepted', updatedAt: now }, publicOrganizationView(await organizationViewOf(tx, org)));
  });
}
