import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { ltiContextOrganizations, organizations } from '../db/schema';
import type { InstanceContext } from '../instances/instances';
import { addMembershipInTx } from '../organizations/memberships';
import { createOrganization } from '../organizations/organizations';
import { ADMIN_ROLE } from '../organizations/roles';
import { memberAccess } from '../organizations/memberships';

/**
 * Organizations from course contexts (registrations with `organizations_from_contexts`):
 * a platform's context (issuer + context id) maps to one organization, made on its first
 * launch and named after the course; the learner joins it on launch — LTI instructors and
 * administrators as org:admin, everyone else with the instance's default role. An existing
 * membership is left as it is. Runs in the launch's transaction.
 */
const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const STAFF_ROLES = new Set([
  `${LIS}membership#Instructor`,
  `${LIS}membership#Administrator`,
  `${LIS}membership#ContentDeveloper`,
  `${LIS}institution/person#Administrator`,
  `${LIS}system/person#Administrator`,
]);
/** LTI 1.3 also allows the short names of context roles. */
const SHORT_STAFF_ROLES = new Set(['Instructor', 'Administrator', 'ContentDeveloper']);

const isStaff = (roles: string[]) => roles.some((r) => STAFF_ROLES.has(r) || SHORT_STAFF_ROLES.has(r));

type D = Pick<Deps, 'db' | 'clock' | 'caches'>;

export async function joinContextOrganization(
  d: D,
  instance: InstanceContext,
  input: { issuer: string; context: { id: string; title: string | null; label: string | null }; userId: string; roles: string[] },
): Promise<string | null> {
  if (!instance.settings.organizations_enabled) return null;
  const key = and(
    eq(ltiContextOrganizations.instanceId, instance.id),
    eq(ltiContextOrganizations.issuer, input.issuer),
    eq(ltiContextOrganizations.contextId, input.context.id),
  );
  let [mapped] = await d.db.select({ organizationId: ltiContextOrganizations.organizationId }).from(ltiContextOrganizations).where(key);
  if (!mapped) {
    const name = (input.context.title || input.context.label || input.context.id).slice(0, 256);
    const org = await createOrganization(d, instance.id, {
      name,
      private_metadata: { lti: { issuer: input.issuer, context_id: input.context.id } },
    });
    // A concurrent first launch of the same course may have mapped it meanwhile: the first mapping wins.
    await d.db
      .insert(ltiContextOrganizations)
      .values({
        instanceId: instance.id,
        issuer: input.issuer,
        contextId: input.context.id,
        organizationId: org.id,
        createdAt: d.clock.now(),
      })
      .onConflictDoNothing();
    [mapped] = await d.db.select({ organizationId: ltiContextOrganizations.organizationId }).from(ltiContextOrganizations).where(key);
  }
  const organizationId = mapped!.organizationId;
  if (!(await memberAccess(d.db, instance.id, organizationId, input.userId))) {
    const [org] = await d.db.select().from(organizations).where(eq(organizations.id, organizationId));
    const role = isStaff(input.roles) ? ADMIN_ROLE : instance.settings.organization_default_role;
    await addMembershipInTx(d, instance.id, org!, { userId: input.userId, role });
  }
  return organizationId;
}
