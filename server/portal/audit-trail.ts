import { and, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { auditLogView } from '../audit/audit';
import { auditLogs } from '../db/schema';
import { cursorList, keyset, newestFirst, tableRows } from '../http/cursor-list';
import { ownedActorsSql, ownedIdsSql } from './statements';

/**
 * An organization's own audit trail: entries about the organization (its id as target or as
 * `details.organization_id`), about its connections, domains, directory tokens and groups,
 * memberships (by target), and everything its connections, directory tokens and portal
 * sessions did (sign-ins as `sso:<connection>`, provisioning as `scim:<token>`, changes as
 * `portal:<link>`). Nothing of another organization or of the instance's settings.
 */
function ofOrganization(instanceId: string, organizationId: string): SQL {
  const owned = (table: string) => ownedIdsSql(table, organizationId);
  const actors = (table: string, prefix: string) => ownedActorsSql(table, prefix, organizationId);
  return and(
    eq(auditLogs.instanceId, instanceId),
    or(
      eq(auditLogs.target, organizationId),
      sql`${auditLogs.details}->>'organization_id' = ${organizationId}`,
      sql`${auditLogs.target} in (${owned('sso_connections')} union all ${owned('organization_domains')} union all ${owned('scim_tokens')} union all ${owned('scim_groups')} union all ${owned('organization_memberships')})`,
      sql`${auditLogs.actor} in (${actors('sso_connections', 'sso:')} union all ${actors('scim_tokens', 'scim:')} union all ${actors('portal_links', 'portal:')})`,
    ),
  )!;
}

export interface TrailQuery {
  actor?: string;
  since?: number;
  until?: number;
  limit: number;
  starting_after?: string;
}

const filters = (instanceId: string, organizationId: string, q: Omit<TrailQuery, 'limit' | 'starting_after'>) => [
  ofOrganization(instanceId, organizationId),
  q.actor !== undefined ? eq(auditLogs.actor, q.actor) : undefined,
  q.since !== undefined ? gte(auditLogs.createdAt, q.since) : undefined,
  q.until !== undefined ? lt(auditLogs.createdAt, q.until) : undefined,
];

/** The organization's entries, newest first (cursor envelope). */
export function listOrganizationAuditLogs(deps: Pick<Deps, 'db'>, instanceId: string, organizationId: string, q: TrailQuery) {
  return cursorList(q, newestFirst(auditLogs.id), tableRows(deps.db, auditLogs, ...filters(instanceId, organizationId, q)), auditLogView);
}

const CSV_COLUMNS = ['id', 'created_at', 'actor', 'actor_kind', 'action', 'target', 'ip', 'user_agent', 'details'] as const;
/** RFC 4180 quoting; a leading = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const EXPORT_PAGE = 500;
/** At most this many entries in one export; narrow the dates for more. */
const EXPORT_MAX_ROWS = 50_000;

/** The same entries as CSV (newest first), read page by page as the body is written. */
export function exportOrganizationAuditLogs(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  organizationId: string,
  q: Omit<TrailQuery, 'limit' | 'starting_after'>,
) {
  const encoder = new TextEncoder();
  let after: string | undefined;
  let written = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(',')}\r\n`));
        return;
      }
      const k = keyset(newestFirst(auditLogs.id), { limit: EXPORT_PAGE - 1, starting_after: after });
      const rows = await deps.db
        .select()
        .from(auditLogs)
        .where(and(...filters(instanceId, organizationId, q), k.after))
        .orderBy(k.orderBy)
        .limit(EXPORT_PAGE);
      if (rows.length === 0 || written >= EXPORT_MAX_ROWS) return controller.close();
      const lines = rows.map((r) => {
        const v = auditLogView(r);
        return CSV_COLUMNS.map((c) => csvCell(c === 'created_at' ? new Date(v.created_at).toISOString() : v[c])).join(',');
      });
      written += rows.length;
      after = rows[rows.length - 1]!.id;
      controller.enqueue(encoder.encode(`${lines.join('\r\n')}\r\n`));
      if (rows.length < EXPORT_PAGE) controller.close();
    },
  });
}
