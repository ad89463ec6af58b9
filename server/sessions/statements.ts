import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { preparedSql, statement } from '../db/prepared';
import { clients, oauthApplications, oauthAuthorizations, refreshTokens, sessions, totpFactors, users } from '../db/schema';
import { entitledPlansJson } from '../billing/statements';

/** The sessions domain's hand-written statements (docs/development.md, "Data access"). */

type SessionRow = typeof sessions.$inferSelect;
type Param<T> = T | Placeholder;

/** Whether the user has a verified second factor, as a column of a query on users: `select({ …, secondFactor: secondFactorOf(users.id) })`. */
export const secondFactorOf = (userId: AnyPgColumn | SQL) =>
  sql<boolean>`exists (select 1 from ${totpFactors} where ${totpFactors.userId} = ${userId} and ${totpFactors.status} = 'verified')`.mapWith(
    Boolean,
  );

/** A new session's row (its times given), written with others (db/together.ts). */
const sessionInsert = statement<
  | 'id'
  | 'instanceId'
  | 'userId'
  | 'clientId'
  | 'status'
  | 'actor'
  | 'lastActiveOrganizationId'
  | 'lti'
  | 'ipAddress'
  | 'userAgent'
  | 'browserName'
  | 'browserVersion'
  | 'deviceType'
  | 'osName'
  | 'isMobile'
  | 'now'
  | 'expireAt'
  | 'abandonAt'
  | 'signInWay'
>(
  'session_insert',
  (v) => sql`insert into ${sessions} (id, instance_id, user_id, client_id, status, actor, last_active_organization_id, lti,
            ip_address, user_agent, browser_name, browser_version, device_type, os_name, is_mobile,
            last_active_at, expire_at, abandon_at, sign_in_way, created_at, updated_at)
          values (${v.id}, ${v.instanceId}, ${v.userId}, ${v.clientId}, ${v.status}, ${v.actor}::jsonb, ${v.lastActiveOrganizationId}, ${v.lti}::jsonb,
            ${v.ipAddress}, ${v.userAgent}, ${v.browserName}, ${v.browserVersion}, ${v.deviceType}, ${v.osName}, ${v.isMobile}::boolean,
            ${v.now}, ${v.expireAt}, ${v.abandonAt}, ${v.signInWay}, ${v.now}, ${v.now})`,
);
export const sessionInsertSql = (row: SessionRow, now: number, expireAt: number, abandonAt: number) => {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return sessionInsert({
    id: row.id,
    instanceId: row.instanceId,
    userId: row.userId,
    clientId: row.clientId,
    status: row.status,
    actor: json(row.actor),
    lastActiveOrganizationId: row.lastActiveOrganizationId,
    lti: json(row.lti),
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    browserName: row.browserName,
    browserVersion: row.browserVersion,
    deviceType: row.deviceType,
    osName: row.osName,
    isMobile: row.isMobile,
    now,
    expireAt,
    abandonAt,
    signInWay: row.signInWay,
  });
};

/** A session's refresh token (by its digest). */
const refreshTokenInsert = statement<'digest' | 'sessionId' | 'now'>(
  'refresh_token_insert',
  (v) => sql`insert into ${refreshTokens} (digest, session_id, created_at) values (${v.digest}, ${v.sessionId}, ${v.now})`,
);
export const refreshTokenInsertSql = (digest: string, sessionId: string, now: number) => refreshTokenInsert({ digest, sessionId, now });

/**
 * The statement of the common refresh, in one round trip: when the token is current and its
 * session live and within its deadlines, rotate it, store the successor and mark activity;
 * answers what the jwt needs (no row otherwise). `idleCap` (now + the inactivity timeout) is
 * null when the instance has none. Apart so that a test can EXPLAIN it.
 */
export function rotationSql(v: {
  instanceId: Param<string>;
  sessionId: Param<string>;
  digest: Param<string>;
  successorDigest: Param<string>;
  now: Param<number>;
  idleCap: Param<number> | null;
}): SQL {
  const abandonAt = v.idleCap === null ? sql`expire_at` : sql`least(expire_at, ${v.idleCap}::bigint)`;
  return sql`
    with target as (
      select s.id, s.user_id, s.status, s.actor, s.lti, s.expire_at, s.last_active_organization_id, u.sessions_version,
             s.created_at, s.first_factor_verified_at, s.second_factor_verified_at, ${secondFactorOf(sql`s.user_id`)} as with_second_factor
      from ${refreshTokens} t
      join ${sessions} s on s.id = t.session_id
      join ${users} u on u.id = s.user_id
      where t.digest = ${v.digest} and t.rotated_at is null and s.id = ${v.sessionId} and s.instance_id = ${v.instanceId}
        and s.status in ('active', 'pending') and s.expire_at > ${v.now} and s.abandon_at > ${v.now}
    ), rotated as (
      update ${refreshTokens} set rotated_at = ${v.now}
      where digest = ${v.digest} and rotated_at is null and exists (select 1 from target)
      returning session_id
    ), successor as (
      insert into ${refreshTokens} (digest, session_id, created_at)
      select ${v.successorDigest}, session_id, ${v.now} from rotated
      on conflict (digest) do nothing
    ), touched as (
      update ${sessions} set last_active_at = ${v.now}, abandon_at = ${abandonAt}, updated_at = ${v.now}
      where id in (select session_id from rotated)
    )
    select id, user_id, status, actor, lti, expire_at, last_active_organization_id, sessions_version,
           created_at, first_factor_verified_at, second_factor_verified_at, with_second_factor,
           ${entitledPlansJson(v.instanceId, sql`target.user_id`, sql`target.last_active_organization_id`)} as plans
      from target where exists (select 1 from rotated)`;
}

/** The two forms of the rotation (with and without an inactivity timeout), prepared once per handle. */
const rotationWith = (idle: boolean) => {
  const p = sql.placeholder;
  return preparedSql(idle ? 'refresh_rotate_idle' : 'refresh_rotate', () =>
    rotationSql({
      instanceId: p('instanceId'),
      sessionId: p('sessionId'),
      digest: p('digest'),
      successorDigest: p('successorDigest'),
      now: p('now'),
      idleCap: idle ? p('idleCap') : null,
    }),
  );
};
export const rotations = { idle: rotationWith(true), always: rotationWith(false) };

/**
 * The careful path's rotation, in one statement: rotate (only if still current), store the
 * successor, mark activity. When a concurrent refresh rotated it first, nothing changes.
 */
export const rotateIfCurrentSql = (v: { digest: string; successorDigest: string; now: number; abandonAt: number }) => sql`
      with rotated as (
        update ${refreshTokens} set rotated_at = ${v.now}
        where digest = ${v.digest} and rotated_at is null
        returning session_id
      ), successor as (
        insert into ${refreshTokens} (digest, session_id, created_at)
        select ${v.successorDigest}, session_id, ${v.now} from rotated
        on conflict (digest) do nothing
      ), touched as (
        update ${sessions} set last_active_at = ${v.now}, abandon_at = ${v.abandonAt}, updated_at = ${v.now}
        where id in (select session_id from rotated)
      )
      select count(*)::int as n from rotated`;

/** A new client's row. */
const clientInsert = statement<'id' | 'instanceId' | 'tokenDigest' | 'now'>(
  'client_insert',
  (v) =>
    sql`insert into ${clients} (id, instance_id, token_digest, created_at, updated_at) values (${v.id}, ${v.instanceId}, ${v.tokenDigest}, ${v.now}, ${v.now})`,
);
export const clientInsertSql = (client: { id: string; tokenDigest: string }, instanceId: string, now: number) =>
  clientInsert({ id: client.id, instanceId, tokenDigest: client.tokenDigest, now });

/** The client's active session set, and its token digest replaced when one is given; `returning *`. */
const activeSession = statement<'clientId' | 'sessionId' | 'now' | 'tokenDigest'>(
  'client_active_session',
  (v) => sql`update ${clients} set last_active_session_id = ${v.sessionId}, updated_at = ${v.now},
                    token_digest = coalesce(${v.tokenDigest}::text, token_digest)
                  where id = ${v.clientId} returning *`,
);
export const activeSessionSql = (clientId: string, sessionId: string, now: number, tokenDigest: string | null) =>
  activeSession({ clientId, sessionId, now, tokenDigest });

/** The applications with a back-channel logout URI that the sessions signed into, with the user and `sid`. */
export const backchannelTargetsSql = (sessionIds: readonly string[]) => sql`
      select distinct a.instance_id, a.application_id, a.context->>'sid' as sid, a.user_id
      from ${oauthAuthorizations} a join ${oauthApplications} p on p.id = a.application_id
      where a.context->>'sid' in (${sql.join(
        sessionIds.map((id) => sql`${id}`),
        sql`, `,
      )}) and p.backchannel_logout_uri is not null`;
