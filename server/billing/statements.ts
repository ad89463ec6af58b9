import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { billingPlans, billingSubscriptions } from '../db/schema';

/** The billing domain's hand-written statements (docs/development.md, "Data access"). */

/** Statuses under which a subscription grants its plan's features. */
export const ENTITLED_STATUSES = ['active', 'trialing', 'past_due'] as const;

/**
 * The same rows as entitledPlans (subscriptions.ts), as a SQL expression (a json array) for a statement that
 * already knows the user and organization: token refresh reads them in its one round trip.
 */
export const entitledPlansJson = (instanceId: SQL | Placeholder | string, userId: SQL, orgId: SQL) => sql`(
  select coalesce(json_agg(json_build_object('subject', bs.subject, 'key', bp.key, 'features', bp.features) order by bs.id desc), '[]'::json)
    from ${billingSubscriptions} bs join ${billingPlans} bp on bp.id = bs.plan_id
   where bs.instance_id = ${instanceId} and (bs.subject = ${userId} or bs.subject = coalesce(${orgId}, ''))
     and bs.deleted_at is null and bs.status in (${sql.join(
       ENTITLED_STATUSES.map((s) => sql`${s}`),
       sql`, `,
     )}))`;
