import { eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { apiKeys } from '../db/schema';
import { auditTrail } from '../http/transaction';
import { markRevoked } from './api-keys';

export type SubjectGone = 'user_deleted' | 'user_banned' | 'organization_deleted';

/**
 * Revokes every live key of a user or organization that is being deleted or banned; call
 * it in the transaction of that change. Each key gets `apiKey.revoked` and an audit entry
 * of its own, by the system; those entries are consequences, so they stand outside the
 * request's audit trail and the router still records the deletion or ban itself. Other
 * nodes stop accepting the keys within the cache's second.
 */
export async function revokeKeysOfSubject(d: Pick<Deps, 'db' | 'clock'>, instanceId: string, subject: string, reason: SubjectGone) {
  const rows = await markRevoked(d, instanceId, eq(apiKeys.subject, subject), reason);
  await auditTrail.exit(async () => {
    for (const row of rows) {
      await audit(d, {
        instanceId,
        actor: 'system',
        action: 'api_key.revoked',
        target: row.id,
        details: { subject, name: row.name, revocation_reason: reason },
      });
    }
  });
  return rows.length;
}
