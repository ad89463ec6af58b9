import { z } from 'zod';
import { endpoint } from '../http/endpoint';
import { validationError } from '../http/errors';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { listAuditLogs } from './audit';

export const auditLogSchema = z
  .object({
    object: z.literal('audit_log'),
    id: z.string(),
    /** Who acted: `key:<id>`, `cli`, `user:<id>`, `system…`. */
    actor: z.string(),
    /** The kind of credential that acted: secret_key, operator, user, personal_access_token, system… */
    actor_kind: z.string(),
    action: z.string(),
    target: z.string().nullable(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
    created_at: z.number().int(),
  })
  .meta({ id: 'AuditLog' });

const millisParam = z.coerce.number().int().min(0);

export const listAuditLogsQuery = z.strictObject({
  ...pageQuery,
  action: z.string().min(1).max(128).optional(),
  actor: z.string().min(1).max(256).optional(),
  target: z.string().min(1).max(256).optional(),
  /** created_at >= since (ms). */
  since: millisParam.optional(),
  /** created_at < until (ms). */
  until: millisParam.optional(),
});

/** The audit log of the instance `instanceOf` names for a surface's caller. */
export const auditLogEndpointsFor = <Auth>(instanceOf: (auth: Auth) => { id: string }) => ({
  list: endpoint<Auth, never, z.output<typeof listAuditLogsQuery>>({
    summary: 'List audit log entries, newest first; filter by action, actor, target and created_at (since inclusive, until exclusive, ms)',
    query: listAuditLogsQuery,
    response: cursorPageSchema(auditLogSchema),
    handle: async ({ deps, auth, query }) => {
      if (query.since !== undefined && query.until !== undefined && query.until <= query.since) {
        throw validationError('until', 'before_since', 'until must be later than since.');
      }
      return listAuditLogs(deps, instanceOf(auth).id, query);
    },
  }),
});
