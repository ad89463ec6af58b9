import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { newId } from '../db/ids';
import { scimGroupMembers, scimGroups, scimUsers } from '../db/schema';
import { project, returns, type ListQuery, type Projection } from './attributes';
import { checkIfMatch, etagOf, isoTime, scimNotFound, type Directory } from './directory';
import { GROUP_SCHEMA, listResponse } from './discovery';
import { invalidValue, scimError } from './errors';
import { getCaseless, parseFilter } from './filter';
import { filterToSql, tableResolver } from './filter-sql';
import { groupMembersSpec } from './statements';
import { applyPatch, type PatchBody, type PatchShape } from './patch';
import { syncMappedRoles } from './roles';
import { assertDirectoryUsers } from './users';

type GroupRow = typeof scimGroups.$inferSelect;
interface Member {
  userId: string;
  userName: string;
}

const MAX_TEXT = 256;
/** Members one request may name; larger groups are managed with PATCH add/remove. */
const MAX_MEMBERS = 10_000;

function groupResource(g: GroupRow, members: Member[] | null, dir: Pick<Directory, 'baseUrl'>) {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    displayName: g.displayName,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    ...(members
      ? { members: members.map((m) => ({ value: m.userId, display: m.userName, type: 'User', $ref: `${dir.baseUrl}/Users/${m.userId}` })) }
      : {}),
    meta: {
      resourceType: 'Group',
      created: isoTime(g.createdAt),
      lastModified: isoTime(g.updatedAt),
      location: `${dir.baseUrl}/Groups/${g.id}`,
      version: etagOf(g.version),
    },
  };
}

async function findGroup(db: Db, dir: Directory, id: string, lock = false): Promise<GroupRow> {
  const q = db
    .select()
    .from(scimGroups)
    .where(and(eq(scimGroups.organizationId, dir.organizationId), eq(scimGroups.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw scimNotFound('Group');
  return row;
}

async function membersOf(db: Db, groupIds: string[]): Promise<Map<string, Member[]>> {
  const out = new Map<string, Member[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .select({ groupId: scimGroupMembers.groupId, userId: scimGroupMembers.userId, userName: scimUsers.userName })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, and(eq(scimUsers.organizationId, scimGroupMembers.organizationId), eq(scimUsers.userId, scimGroupMembers.userId)))
    .where(inArray(scimGroupMembers.groupId, groupIds))
    .orderBy(asc(scimGroupMembers.userId));
  for (const r of rows) out.get(r.groupId)!.push({ userId: r.userId, userName: r.userName });
  return out;
}

const groupAttributes = tableResolver(GROUP_SCHEMA.toLowerCase(), {
  [GROUP_SCHEMA.toLowerCase()]: {
    id: { kind: 'string', expr: scimGroups.id, caseExact: true },
    displayname: { kind: 'string', expr: scimGroups.displayName, caseExact: false, key: scimGroups.displayNameKey },
    externalid: { kind: 'string', expr: scimGroups.externalId, caseExact: true },
    members: groupMembersSpec,
    'meta.created': { kind: 'datetime', expr: scimGroups.createdAt },
    'meta.lastmodified': { kind: 'datetime', expr: scimGroups.updatedAt },
  },
});

/** GET /Groups. Members are read only when the answer includes them (`excludedAttributes=members` skips them). */
export async function listScimGroups(deps: Pick<Deps, 'db'>, dir: Directory, q: ListQuery) {
  const where = and(
    eq(scimGroups.organizationId, dir.organizationId),
    q.filter ? filterToSql(parseFilter(q.filter), groupAttributes) : undefined,
  );
  const [total] = await deps.db.select({ n: count() }).from(scimGroups).where(where);
  const rows =
    q.count === 0
      ? []
      : await deps.db
          .select()
          .from(scimGroups)
          .where(where)
          .orderBy(asc(scimGroups.id))
          .limit(q.count)
          .offset(q.startIndex - 1);
  const members = returns(q, 'members')
    ? await membersOf(
        deps.db,
        rows.map((r) => r.id),
      )
    : null;
  return listResponse(
    rows.map((g) => project(groupResource(g, members?.get(g.id) ?? null, dir), q, [])),
    Number(total?.n ?? 0),
    q.startIndex,
  );
}

export async function getScimGroup(deps: Pick<Deps, 'db'>, dir: Directory, id: string, p: Projection) {
  const g = await findGroup(deps.db, dir, id);
  const members = returns(p, 'members') ? (await membersOf(deps.db, [g.id])).get(g.id)! : null;
  return { group: g, resource: project(groupResource(g, members, dir), p, []) };
}

interface GroupInput {
  displayName: string;
  externalId: string | null;
  members: string[];
}

function parseGroupInput(body: unknown): GroupInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidValue('The body must be a Group object.');
  const displayName = getCaseless(body, 'displayname');
  if (typeof displayName !== 'string' || !displayName.trim()) throw invalidValue('displayName is required.');
  if (displayName.length > MAX_TEXT) throw invalidValue(`displayName is at most ${MAX_TEXT} characters.`);
  const externalId = getCaseless(body, 'externalid');
  if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > MAX_TEXT)) {
    throw invalidValue(`externalId must be a string of at most ${MAX_TEXT} characters.`);
  }
  const members = getCaseless(body, 'members') ?? [];
  if (!Array.isArray(members)) throw invalidValue('members must be an array.');
  if (members.length > MAX_MEMBERS)
    throw scimError('VALIDATION_FAILED', 'tooMany', `A request names at most ${MAX_MEMBERS} members; add more with PATCH.`);
  const ids = members.map((m, i) => {
    const value = getCaseless(m, 'value');
    if (typeof value !== 'string' || !value || value.length > 64) throw invalidValue(`members[${i}].value must be a user id.`);
    return value;
  });
  return { displayName: displayName.trim(), externalId: (externalId as string | null | undefined) || null, members: [...new Set(ids)] };
}

async function assertDisplayNameFree(db: Db, dir: Directory, name: string, exceptId?: string) {
  const [taken] = await db
    .select({ id: scimGroups.id })
    .from(scimGroups)
    .where(
      and(
        eq(scimGroups.organizationId, dir.organizationId),
        eq(scimGroups.displayNameKey, name.toLowerCase()),
        exceptId ? ne(scimGroups.id, exceptId) : undefined,
      ),
    );
  if (taken) throw scimError('CONFLICT', 'uniqueness', `A group named ${name} already exists in this directory.`);
}

/** Adds and removes members; members of a mapped group get (or lose) its role. */
async function setMembers(deps: Deps, dir: Directory, group: GroupRow, next: string[]) {
  const current = new Set(
    (await deps.db.select({ userId: scimGroupMembers.userId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, group.id))).map(
      (r) => r.userId,
    ),
  );
  const wanted = new Set(next);
  const added = next.filter((id) => !current.has(id));
  const removed = [...current].filter((id) => !wanted.has(id));
  await assertDirectoryUsers(deps.db, dir, added);
  const now = deps.clock.now();
  for (let i = 0; i < added.length; i += 1000) {
    await deps.db
      .insert(scimGroupMembers)
      .values(
        added.slice(i, i + 1000).map((userId) => ({ groupId: group.id, userId, organizationId: dir.organizationId, createdAt: now })),
      );
  }
  if (removed.length)
    await deps.db.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, group.id), inArray(scimGroupMembers.userId, removed)));
  if (group.role) await syncMappedRoles(deps, dir, [...added, ...removed]);
  return added.length + removed.length > 0;
}

export async function createScimGroup(deps: Deps, dir: Directory, body: unknown) {
  const input = parseGroupInput(body);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    await assertDisplayNameFree(tx, dir, input.displayName);
    const now = deps.clock.now();
    const [group] = await tx
      .insert(scimGroups)
      .values({
        id: newId('scimgrp'),
        instanceId: dir.instanceId,
        organizationId: dir.organizationId,
        displayName: input.displayName,
        displayNameKey: input.displayName.toLowerCase(),
        externalId: input.externalId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await setMembers(d, dir, group!, input.members);
    return getScimGroup(d, dir, group!.id, {});
  });
}

export async function replaceScimGroup(deps: Deps, dir: Directory, id: string, body: unknown) {
  const input = parseGroupInput(body);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const group = await findGroup(tx, dir, id, true);
    checkIfMatch(dir, group.version);
    if (input.displayName !== group.displayName) await assertDisplayNameFree(tx, dir, input.displayName, group.id);
    const membersChanged = await setMembers(d, dir, group, input.members);
    if (membersChanged || input.displayName !== group.displayName || input.externalId !== group.externalId) {
      await tx
        .update(scimGroups)
        .set({
          displayName: input.displayName,
          displayNameKey: input.displayName.toLowerCase(),
          externalId: input.externalId,
          version: sql`${scimGroups.version} + 1`,
          updatedAt: deps.clock.now(),
        })
        .where(eq(scimGroups.id, group.id));
    }
    return getScimGroup(d, dir, group.id, {});
  });
}

const GROUP_SHAPE: PatchShape = { multiValued: new Set(['members']), extensions: [], core: GROUP_SCHEMA, caseExact: new Set(['value']) };

/** PATCH /Groups/:id: member adds, removals by filter or by value, replacements and renames. */
export async function patchScimGroup(deps: Deps, dir: Directory, id: string, body: PatchBody, p: Projection) {
  const current = await getScimGroup(deps, dir, id, {});
  checkIfMatch(dir, current.group.version);
  const next = applyPatch(current.resource, body, GROUP_SHAPE);
  const result = await replaceScimGroup(deps, { ...dir, ifMatch: etagOf(current.group.version) }, id, next);
  return { ...result, resource: project(result.resource, p, []) };
}

/** DELETE /Groups/:id: members of a mapped group fall back to their other groups' role. */
export async function deleteScimGroup(deps: Deps, dir: Directory, id: string) {
  await deps.db.transaction(async (tx) => {
    const group = await findGroup(tx, dir, id, true);
    checkIfMatch(dir, group.version);
    const members = (
      await tx.select({ userId: scimGroupMembers.userId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, group.id))
    ).map((r) => r.userId);
    await tx.delete(scimGroups).where(eq(scimGroups.id, group.id));
    if (group.role) await syncMappedRoles({ ...deps, db: tx }, dir, members);
  });
}
