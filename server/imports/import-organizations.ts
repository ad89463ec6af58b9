import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Deps } from '../deps';
import { organizationMemberships, organizations, permissions, roles, users } from '../db/schema';
import { isId, newId } from '../db/ids';
import { emitEvent } from '../events/events';
import { metadataProblem } from '../http/metadata';
import type { AuditContext } from '../http/actor';
import { membershipsWithUsers, membershipView } from '../organizations/memberships';
import { organizationView } from '../organizations/organization-view';
import { createPermission, createRole, ensureBuiltIns, PERMISSION_KEY_RE, ROLE_KEY_RE } from '../organizations/roles';
import { slug as slugInput } from '../organizations/schemas';
import type { ClerkApi, ClerkMembership, ClerkOrganization } from './clerk-api';
import type { ImportOutcome, Skipped } from './import-users';

/**
 * Writes Clerk's organizations and memberships into an instance, keeping the `org_…` ids:
 * an organization already there (same id) is brought up to date, each in one transaction
 * with its memberships. Members must have been imported first (their user ids are Clerk's).
 * A role key the instance lacks (a Clerk custom role) is created first, with the
 * permissions its members hold in Clerk; memberships are added or updated, never removed.
 */

type D = Pick<Deps, 'db' | 'clock' | 'caches'>;

export interface OrganizationImportSummary {
  organizations: Record<ImportOutcome, number>;
  memberships: Record<ImportOutcome, number>;
  rolesCreated: string[];
  skipped: Skipped[];
}

export interface OrganizationImportOptions {
  dryRun: boolean;
  events: boolean;
  audit: AuditContext;
  onProgress?: (organizations: number, summary: OrganizationImportSummary) => void;
}

type OrgRow = typeof organizations.$inferSelect;
type MembershipRow = typeof organizationMemberships.$inferSelect;

const metadataOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The organization's row as Clerk describes it, or why it cannot be one (members_count is the triggers' own: migration 0052). */
function organizationRow(
  instanceId: string,
  o: ClerkOrganization,
  now: number,
): Omit<OrgRow, 'createdBy' | 'imageUrl' | 'membersCount'> | string {
  if (typeof o.id !== 'string' || !isId('org', o.id)) return `${String(o.id)} is not a Clerk organization id`;
  const slug = slugInput.safeParse(o.slug);
  if (!slug.success) return `slug ${String(o.slug)} ${slug.error.issues[0]!.message}`;
  const name = typeof o.name === 'string' ? o.name.trim() : '';
  if (!name || name.length > 256) return 'name is empty or longer than 256 characters';
  const publicMetadata = metadataOf(o.public_metadata);
  const privateMetadata = metadataOf(o.private_metadata);
  const problem = metadataProblem(publicMetadata) ?? metadataProblem(privateMetadata);
  if (problem) return `metadata is ${problem === 'too_deep' ? 'nested too deep' : 'larger than 8 KiB'}`;
  const max = o.max_allowed_memberships;
  return {
    id: o.id,
    instanceId,
    name,
    slug: slug.data,
    publicMetadata,
    privateMetadata,
    maxAllowedMemberships: typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : 0,
    createdAt: typeof o.created_at === 'number' && o.created_at > 0 ? o.created_at : now,
    updatedAt: now,
  };
}

export async function importOrganizations(
  deps: D,
  instanceId: string,
  api: ClerkApi,
  opts: OrganizationImportOptions,
): Promise<OrganizationImportSummary> {
  const summary: OrganizationImportSummary = {
    organizations: { created: 0, updated: 0, unchanged: 0 },
    memberships: { created: 0, updated: 0, unchanged: 0 },
    rolesCreated: [],
    skipped: [],
  };
  await ensureBuiltIns(deps, instanceId);
  const knownRoles = new Set(
    (await deps.db.select({ key: roles.key }).from(roles).where(eq(roles.instanceId, instanceId))).map((r) => r.key),
  );
  let seen = 0;
  for await (const o of api.organizations()) {
    seen++;
    const where = `organization ${String(o.id)}`;
    const now = deps.clock.now();
    const row = organizationRow(instanceId, o, now);
    if (typeof row === 'string') {
      summary.skipped.push({ where, id: String(o.id), reason: row });
      continue;
    }
    const members: ClerkMembership[] = [];
    for await (const m of api.memberships(row.id)) members.push(m);
    await ensureRoles(deps, instanceId, members, knownRoles, summary, opts);
    const reason = await writeOrganization(deps, instanceId, o, row, members, summary, opts);
    if (reason) summary.skipped.push({ where, id: row.id, reason });
    opts.onProgress?.(seen, summary);
  }
  return summary;
}

/** Creates the role keys members hold that the instance lacks, with the permissions those members hold. */
async function ensureRoles(
  deps: D,
  instanceId: string,
  members: ClerkMembership[],
  known: Set<string>,
  summary: OrganizationImportSummary,
  opts: OrganizationImportOptions,
) {
  for (const m of members) {
    if (typeof m.role !== 'string' || !ROLE_KEY_RE.test(m.role) || known.has(m.role)) continue;
    known.add(m.role);
    summary.rolesCreated.push(m.role);
    if (opts.dryRun) continue;
    const wanted = (m.permissions ?? []).filter((p) => typeof p === 'string' && PERMISSION_KEY_RE.test(p));
    const existing = new Set(
      wanted.length
        ? (
            await deps.db
              .select({ key: permissions.key })
              .from(permissions)
              .where(and(eq(permissions.instanceId, instanceId), inArray(permissions.key, wanted)))
          ).map((p) => p.key)
        : [],
    );
    for (const key of wanted)
      if (!existing.has(key) && !key.startsWith('org:sys_')) await createPermission(deps, instanceId, { key, name: key }, opts.audit);
    const granted = wanted.filter((k) => existing.has(k) || !k.startsWith('org:sys_'));
    await createRole(
      deps,
      instanceId,
      { key: m.role, name: (m.role_name ?? '').trim().slice(0, 256) || m.role, permissions: granted },
      opts.audit,
    );
  }
}

/** The organization and its memberships in one transaction; a reason when it is skipped. */
async function writeOrganization(
  deps: D,
  instanceId: string,
  o: ClerkOrganization,
  row: Exclude<ReturnType<typeof organizationRow>, string>,
  members: ClerkMembership[],
  summary: OrganizationImportSummary,
  opts: OrganizationImportOptions,
): Promise<string | null> {
  const counts = { organizations: { created: 0, updated: 0, unchanged: 0 }, memberships: { created: 0, updated: 0, unchanged: 0 } };
  const skipped: Skipped[] = [];
  const dryRunDone = new Error('dry run');
  try {
    await deps.db.transaction(async (tx) => {
      const [elsewhere] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(and(eq(organizations.id, row.id), ne(organizations.instanceId, instanceId)));
      if (elsewhere) throw new Skipping('the id belongs to an organization of another instance');
      const [slugHolder] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(and(eq(organizations.instanceId, instanceId), eq(organizations.slug, row.slug), ne(organizations.id, row.id)));
      if (slugHolder) throw new Skipping(`slug ${row.slug} belongs to ${slugHolder.id}`);
      const [stored] = await tx.select().from(organizations).where(eq(organizations.id, row.id)).for('update');
      const creator = typeof o.created_by === 'string' ? o.created_by : null;
      const [creatorRow] = creator
        ? await tx
            .select({ id: users.id })
            .from(users)
            .where(and(eq(users.id, creator), eq(users.instanceId, instanceId)))
        : [];
      let outcome: ImportOutcome = 'unchanged';
      if (!stored) {
        await tx.insert(organizations).values({ ...row, createdBy: creatorRow?.id ?? null });
        outcome = 'created';
      } else {
        const patch: Partial<OrgRow> = {};
        for (const k of ['name', 'slug', 'publicMetadata', 'privateMetadata', 'maxAllowedMemberships'] as const)
          if (!sameJson(stored[k], row[k])) Object.assign(patch, { [k]: row[k] });
        if (Object.keys(patch).length) {
          await tx
            .update(organizations)
            .set({ ...patch, updatedAt: row.updatedAt })
            .where(eq(organizations.id, row.id));
          outcome = 'updated';
        }
      }
      counts.organizations[outcome]++;

      const byUser = new Map<string, MembershipRow>(
        (await tx.select().from(organizationMemberships).where(eq(organizationMemberships.organizationId, row.id))).map((m) => [
          m.userId,
          m,
        ]),
      );
      const userIds = members.map((m) => m.public_user_data?.user_id).filter((id): id is string => typeof id === 'string');
      const present = new Set(
        userIds.length
          ? (
              await tx
                .select({ id: users.id })
                .from(users)
                .where(and(eq(users.instanceId, instanceId), inArray(users.id, userIds)))
            ).map((u) => u.id)
          : [],
      );
      const changed: { userId: string; created: boolean }[] = [];
      for (const m of members) {
        const userId = m.public_user_data?.user_id;
        const where = `membership ${row.id}/${String(userId)}`;
        if (typeof userId !== 'string' || !present.has(userId)) {
          skipped.push({ where, id: String(userId), reason: 'the user is not in this instance (import the users first)' });
          continue;
        }
        if (typeof m.role !== 'string' || !ROLE_KEY_RE.test(m.role)) {
          skipped.push({ where, id: userId, reason: `role ${String(m.role)} is not a role key (org:<name>)` });
          continue;
        }
        const publicMetadata = metadataOf(m.public_metadata);
        const privateMetadata = metadataOf(m.private_metadata);
        if (metadataProblem(publicMetadata) || metadataProblem(privateMetadata)) {
          skipped.push({ where, id: userId, reason: 'metadata is nested too deep or larger than 8 KiB' });
          continue;
        }
        const now = deps.clock.now();
        const existing = byUser.get(userId);
        if (!existing) {
          const createdAt = typeof m.created_at === 'number' && m.created_at > 0 ? m.created_at : now;
          await tx.insert(organizationMemberships).values({
            id: newId('orgmem'),
            instanceId,
            organizationId: row.id,
            userId,
            role: m.role,
            publicMetadata,
            privateMetadata,
            createdAt,
            updatedAt: now,
          });
          changed.push({ userId, created: true });
          counts.memberships.created++;
        } else if (
          existing.role !== m.role ||
          !sameJson(existing.publicMetadata, publicMetadata) ||
          !sameJson(existing.privateMetadata, privateMetadata)
        ) {
          await tx
            .update(organizationMemberships)
            .set({ role: m.role, publicMetadata, privateMetadata, updatedAt: now })
            .where(eq(organizationMemberships.id, existing.id));
          changed.push({ userId, created: false });
          counts.memberships.updated++;
        } else counts.memberships.unchanged++;
      }
      if (opts.dryRun) throw dryRunDone;
      if (opts.events) {
        const d = { db: tx, clock: deps.clock };
        const joined = await membershipsWithUsers(tx, instanceId, { organizationId: row.id });
        const [fresh] = await tx.select().from(organizations).where(eq(organizations.id, row.id));
        if (outcome !== 'unchanged')
          await emitEvent(
            d,
            instanceId,
            outcome === 'created' ? 'organization.created' : 'organization.updated',
            organizationView(fresh!, joined.length),
          );
        for (const c of changed) {
          const m = joined.find((j) => j.membership.userId === c.userId);
          if (m)
            await emitEvent(
              d,
              instanceId,
              c.created ? 'organizationMembership.created' : 'organizationMembership.updated',
              membershipView(m),
            );
        }
      }
    });
  } catch (e) {
    if (e instanceof Skipping) return e.message;
    if (e !== dryRunDone) throw e;
  }
  for (const group of ['organizations', 'memberships'] as const)
    for (const k of ['created', 'updated', 'unchanged'] as const) summary[group][k] += counts[group][k];
  summary.skipped.push(...skipped);
  return null;
}

class Skipping extends Error {}
