import { and, count, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { networkAcls, type NetworkAclAction } from '../db/schema';
import { newId } from '../db/ids';
import type { AuditContext } from '../http/actor';
import { AppError, notFound, validationError } from '../http/errors';
import { cidrContains, formatCidr, parseCidr, parseIp, type Cidr } from '../infra/ip';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { REASONS } from './reasons';

/**
 * The instance-scoped surfaces a rule can name: each names its instance to the router
 * (`instanceOf`: the fapi_url path, the BAPI key's instance, the SCIM token's). The console
 * and the dashboard API are never subject to an instance's ACL, so an operator cannot lock
 * themselves out.
 */
export const ACL_SURFACES = ['bapi', 'fapi', 'oidc', 'sso', 'lti', 'scim'] as const;
export type AclSurface = (typeof ACL_SURFACES)[number];
const MAX_RULES_PER_INSTANCE = 200;

type AclRow = typeof networkAcls.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation'>;

const networkAclView = (r: AclRow) => ({
  object: 'network_acl' as const,
  id: r.id,
  action: r.action,
  cidr: r.cidr,
  surfaces: r.surfaces as AclSurface[],
  description: r.description,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
/** The canonical block (host bits cleared), or 422 invalid_cidr. */
function canonicalCidr(text: string): string {
  const cidr = parseCidr(text);
  if (!cidr)
    throw validationError(
      'cidr',
      REASONS.invalid_cidr,
      'cidr must be an IPv4 or IPv6 address or CIDR block, such as 203.0.113.0/24 or 2001:db8::/32.',
    );
  return formatCidr(cidr);
}
const canonicalSurfaces = (s: readonly AclSurface[]) => ACL_SURFACES.filter((x) => s.includes(x));

/* Rules as the guard reads them, per node; a change is forgotten here at once and elsewhere within the TTL. */
const ACL_CACHE_TTL_MS = 4_000;
interface CompiledRule {
  id: string;
  action: NetworkAclAction;
  cidr: Cidr;
}
type Compiled = Partial<Record<AclSurface, { deny: CompiledRule[]; allow: CompiledRule[] }>>;
const ACL_CACHE = 'network_acls';
const cacheOf = (deps: Pick<Deps, 'caches'>) => deps.caches.get<Compiled>(ACL_CACHE, ACL_CACHE_TTL_MS);

async function compiledRules(deps: D, instanceId: string): Promise<Compiled> {
  const cache = cacheOf(deps);
  const now = deps.clock.now();
  const hit = cache.get(instanceId, now);
  if (hit) return hit;
  const rows = await deps.db.select().from(networkAcls).where(eq(networkAcls.instanceId, instanceId));
  const compiled: Compiled = {};
  for (const row of rows) {
    const cidr = parseCidr(row.cidr);
    if (!cidr) continue;
    for (const surface of row.surfaces as AclSurface[]) {
      const lists = (compiled[surface] ??= { deny: [], allow: [] });
      lists[row.action].push({ id: row.id, action: row.action, cidr });
    }
  }
  cache.set(instanceId, compiled, now);
  return compiled;
}

export type AclVerdict =
  { allowed: true } | { allowed: false; rule: string | null; reason: typeof REASONS.denied_by_rule | typeof REASONS.not_in_allow_list };

/**
 * Deny beats allow; once a surface has an allow rule, only the addresses it allows pass.
 * An unknown address (a host that hides the peer) matches no rule, so it passes unless an
 * allow-list is in force.
 */
export async function evaluateNetworkAcl(deps: D, instanceId: string, surface: string, ip: string | null): Promise<AclVerdict> {
  const lists = (await compiledRules(deps, instanceId))[surface as AclSurface];
  if (!lists) return { allowed: true };
  const parsed = ip === null ? null : parseIp(ip);
  const matches = (r: CompiledRule) => parsed !== null && cidrContains(r.cidr, parsed);
  const denied = lists.deny.find(matches);
  if (denied) return { allowed: false, rule: denied.id, reason: REASONS.denied_by_rule };
  if (lists.allow.length > 0 && !lists.allow.some(matches)) return { allowed: false, rule: null, reason: REASONS.not_in_allow_list };
  return { allowed: true };
}

async function loadNetworkAcl(deps: Pick<Deps, 'db'>, instanceId: string, id: string): Promise<AclRow> {
  const [row] = await deps.db
    .select()
    .from(networkAcls)
    .where(and(eq(networkAcls.id, id), eq(networkAcls.instanceId, instanceId)));
  if (!row) throw notFound('network ACL rule');
  return row;
}

export interface CreateNetworkAclInput {
  action: NetworkAclAction;
  cidr: string;
  surfaces: AclSurface[];
  description?: string;
}

export async function createNetworkAcl(deps: D, instanceId: string, input: CreateNetworkAclInput, ctx: AuditContext) {
  const cidr = canonicalCidr(input.cidr);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(networkAcls).where(eq(networkAcls.instanceId, instanceId));
    if (n >= MAX_RULES_PER_INSTANCE) {
      throw new AppError('CONFLICT', {
        message: `An instance holds at most ${MAX_RULES_PER_INSTANCE} network ACL rules; widen a block instead.`,
        meta: { reason: REASONS.too_many_rules, max: MAX_RULES_PER_INSTANCE },
      });
    }
    const [created] = await tx
      .insert(networkAcls)
      .values({
        id: newId('acl'),
        instanceId,
        action: input.action,
        cidr,
        surfaces: canonicalSurfaces(input.surfaces),
        description: input.description ?? '',
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        ...ctx,
        instanceId,
        action: 'network_acl.created',
        target: created!.id,
        details: { action: input.action, cidr, surfaces: created!.surfaces },
      },
    );
    return created!;
  });
  deps.cacheInvalidation.invalidate(ACL_CACHE, instanceId);
  return networkAclView(row);
}

export async function getNetworkAcl(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return networkAclView(await loadNetworkAcl(deps, instanceId, id));
}

export async function listNetworkAcls(deps: Pick<Deps, 'db'>, instanceId: string, q: { limit: number; starting_after?: string }) {
  return cursorList(
    q,
    newestFirst(networkAcls.id),
    tableRows(deps.db, networkAcls, eq(networkAcls.instanceId, instanceId)),
    networkAclView,
  );
}

export type UpdateNetworkAclInput = Partial<CreateNetworkAclInput>;

export async function updateNetworkAcl(deps: D, instanceId: string, id: string, input: UpdateNetworkAclInput, ctx: AuditContext) {
  const cidr = input.cidr === undefined ? undefined : canonicalCidr(input.cidr);
  const row = await deps.db.transaction(async (tx) => {
    const before = await loadNetworkAcl({ db: tx }, instanceId, id);
    const [updated] = await tx
      .update(networkAcls)
      .set({
        ...(input.action !== undefined ? { action: input.action } : {}),
        ...(cidr !== undefined ? { cidr } : {}),
        ...(input.surfaces !== undefined ? { surfaces: canonicalSurfaces(input.surfaces) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        updatedAt: deps.clock.now(),
      })
      .where(and(eq(networkAcls.id, id), eq(networkAcls.instanceId, instanceId)))
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        ...ctx,
        instanceId,
        action: 'network_acl.updated',
        target: id,
        details: {
          before: { action: before.action, cidr: before.cidr, surfaces: before.surfaces },
          after: { action: updated!.action, cidr: updated!.cidr, surfaces: updated!.surfaces },
        },
      },
    );
    return updated!;
  });
  deps.cacheInvalidation.invalidate(ACL_CACHE, instanceId);
  return networkAclView(row);
}

export async function deleteNetworkAcl(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  await deps.db.transaction(async (tx) => {
    const row = await loadNetworkAcl({ db: tx }, instanceId, id);
    await tx.delete(networkAcls).where(eq(networkAcls.id, id));
    await audit(
      { db: tx, clock: deps.clock },
      {
        ...ctx,
        instanceId,
        action: 'network_acl.deleted',
        target: id,
        details: { action: row.action, cidr: row.cidr, surfaces: row.surfaces },
      },
    );
  });
  deps.cacheInvalidation.invalidate(ACL_CACHE, instanceId);
  return { object: 'network_acl' as const, id, deleted: true as const };
}
