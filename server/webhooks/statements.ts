import { sql } from 'drizzle-orm';
import { webhookAttempts, webhookEndpoints, webhookMessages } from '../db/schema';
import { DISABLE_AFTER_FAILING_MS } from './policy';

/** The webhooks domain's hand-written statements (docs/development.md, "Data access"). */

/**
 * A delivery attempt's outcome, in one statement: the message moves on (only if no other
 * worker moved it meanwhile: `attempts` unchanged), the attempt is recorded, and the
 * endpoint's failing streak starts, ends or disables it (`ok`, `gone`, `failing`). Answers
 * `moved` (0: superseded).
 */
export function attemptRecordedSql(v: {
  message: { id: string; attempts: number };
  endpoint: { id: string; url: string };
  attempt: { id: string; statusCode: number | null; durationMs: number; response: string | null; error: string | null };
  status: string;
  round: number;
  nextAttemptAt: number | null;
  now: number;
  endpointOutcome: 'ok' | 'gone' | 'failing';
}) {
  const { message: msg, endpoint, attempt: r, now } = v;
  const ok = v.endpointOutcome === 'ok';
  const streakStart = sql`coalesce(${webhookEndpoints.failingSince}, ${now}::bigint)`;
  const endpointChange = ok
    ? sql`failing_since = null`
    : v.endpointOutcome === 'gone'
      ? sql`disabled = true, disabled_reason = 'gone', updated_at = ${now}::bigint`
      : sql`failing_since = ${streakStart},
            disabled = disabled or ${streakStart} <= ${now - DISABLE_AFTER_FAILING_MS}::bigint,
            disabled_reason = case when ${streakStart} <= ${now - DISABLE_AFTER_FAILING_MS}::bigint then 'failing' else disabled_reason end`;
  return sql`
    with moved as (
      update ${webhookMessages}
      set status = ${v.status}, attempts = ${msg.attempts + 1}::int, round_attempts = ${v.round}::int,
          next_attempt_at = ${v.nextAttemptAt}::bigint, locked_until = null, updated_at = ${now}::bigint
      where id = ${msg.id} and attempts = ${msg.attempts}::int
      returning id
    ), attempt as (
      -- Not when the endpoint (and with it the message) was deleted meanwhile.
      insert into ${webhookAttempts} (id, message_id, url, status_code, duration_ms, response, error, created_at)
      select ${r.id}, ${msg.id}, ${endpoint.url}, ${r.statusCode}::int, ${r.durationMs}::int, ${r.response}, ${r.error}, ${now}::bigint
      where exists (select 1 from ${webhookMessages} where id = ${msg.id})
      on conflict (id) do nothing
    ), streak as (
      update ${webhookEndpoints} set ${endpointChange}
      where id = ${endpoint.id} and exists (select 1 from moved) ${ok ? sql`and failing_since is not null` : sql``}
    )
    select count(*)::int as moved from moved`;
}
