import { and, asc, eq, gte, inArray, isNotNull, lte, ne, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { instances, smsMessages, type SmsStatus } from '../db/schema';
import { smsView, type SmsRow, type SmsView } from '../email/messages';
import { AppError } from '../http/errors';
import { formFields } from '../http/body';
import { CallbackSignatureInvalid, SmsSendError, type ProviderStatusReport } from './provider';
import { REASONS } from './reasons';
import { loadSmsSettings, smsProviderSetup, statusCallbackUrlOf } from './settings';
import { PROVIDERS } from './twilio';

export type SmsDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger' | 'cipher' | 'dns' | 'testTrustedCas' | 'metrics'>;

/**
 * A send the provider did not take (timeout, network, its 5xx or 429) is tried again after
 * these delays; after the last, the SMS is `failed`. A code lives 10 minutes: so do retries.
 */
export const SMS_RETRY_DELAYS_MS = [15_000, 60_000, 3 * 60_000, 5 * 60_000] as const;
/**
 * A claimed SMS is due again this long after its claim: a process that stopped between the
 * claim and recording the outcome leaves it to the sweep, never lost (sent twice at worst).
 */
export const SMS_CLAIM_LEASE_MS = 60_000;

/** How far along a status is: a late or repeated callback never moves an SMS back. */
const RANK: Record<SmsStatus, number> = { queued: 0, sent: 1, delivered: 2, undelivered: 2, failed: 2 };

/**
 * Delivers one `queued` SMS now: after the commit that wrote it, from the retry sweep, or
 * for a test send. Answers the SMS as it stands afterwards; never throws for a failed send
 * (the row says how it failed and when it is tried again).
 */
export async function deliverSms(deps: SmsDeps, smsId: string): Promise<SmsView | null> {
  const [row] = await deps.db.select().from(smsMessages).where(eq(smsMessages.id, smsId));
  if (!row) return null;
  if (row.status !== 'queued') return smsView(row);
  return (await attemptDelivery(deps, row)) ?? smsView((await deps.db.select().from(smsMessages).where(eq(smsMessages.id, smsId)))[0]!);
}

/** After the commit that wrote it: hands a queued SMS to the provider, off the request's path (the sweep retries a failure). */
export function deliverSmsAfterCommit(deps: SmsDeps, sms: Pick<SmsView, 'id' | 'status'> | null) {
  if (!sms || sms.status !== 'queued') return;
  deliverSms(deps, sms.id).catch((err: unknown) => deps.logger.warn({ err, sms_id: sms.id }, 'SMS delivery failed'));
}

/**
 * One attempt. The claim bumps `attempts` (the row's version: of two nodes, one wins) and
 * moves `next_attempt_at` a lease ahead; the outcome is written only over that claim.
 * Null when another delivery claimed the row first.
 */
async function attemptDelivery(deps: SmsDeps, row: SmsRow): Promise<SmsView | null> {
  const claimedAt = deps.clock.now();
  const [claimed] = await deps.db
    .update(smsMessages)
    .set({ attempts: row.attempts + 1, nextAttemptAt: claimedAt + SMS_CLAIM_LEASE_MS, updatedAt: claimedAt })
    .where(and(eq(smsMessages.id, row.id), eq(smsMessages.attempts, row.attempts), eq(smsMessages.status, 'queued')))
    .returning();
  if (!claimed) return null;

  const outcome = await sendClaimed(deps, claimed);
  deps.metrics.smsDeliveries.inc({ provider: claimed.deliveredBy, status: outcome.status === 'queued' ? 'retrying' : outcome.status });
  // Over the claim, and only while `queued`: a status callback that came first (it names the
  // SMS by id) has already moved it forward, and the outcome must not move it back.
  const [done] = await deps.db
    .update(smsMessages)
    .set({ ...outcome, updatedAt: deps.clock.now() })
    .where(and(eq(smsMessages.id, claimed.id), eq(smsMessages.attempts, claimed.attempts), eq(smsMessages.status, 'queued')))
    .returning();
  if (done) return smsView(done);
  const [now] = await deps.db.select().from(smsMessages).where(eq(smsMessages.id, claimed.id));
  return smsView(now ?? { ...claimed, ...outcome });
}

type Outcome = Pick<SmsRow, 'status' | 'error' | 'errorCode' | 'nextAttemptAt'> & Partial<Pick<SmsRow, 'providerMessageId'>>;

async function sendClaimed(deps: SmsDeps, claimed: SmsRow): Promise<Outcome> {
  const [instance] = await deps.db
    .select({ id: instances.id, environment: instances.environment })
    .from(instances)
    .where(eq(instances.id, claimed.instanceId));
  const setup = instance ? await smsProviderSetup(deps, instance) : null;
  if (!setup) {
    deps.logger.warn({ sms_id: claimed.id }, 'SMS not sent: the instance has no SMS provider any more');
    return {
      status: 'failed',
      error: 'No SMS provider is configured for this instance any more.',
      errorCode: REASONS.not_configured,
      nextAttemptAt: null,
    };
  }
  try {
    const accepted = await setup.provider.send(setup.connection, {
      to: claimed.to,
      body: claimed.body,
      statusCallbackUrl: setup.statusCallbackUrl(claimed.id),
    });
    deps.logger.debug({ sms_id: claimed.id, attempts: claimed.attempts, status: accepted.status }, 'SMS accepted by the provider');
    return { status: accepted.status, providerMessageId: accepted.providerMessageId, error: null, errorCode: null, nextAttemptAt: null };
  } catch (err) {
    const failure =
      err instanceof SmsSendError ? err : new SmsSendError(err instanceof Error ? err.message : String(err), 'internal_error', true);
    const delay = failure.retryable ? SMS_RETRY_DELAYS_MS[claimed.attempts - 1] : undefined;
    deps.logger.warn(
      { sms_id: claimed.id, attempts: claimed.attempts, error_code: failure.code, retry: delay !== undefined },
      'SMS delivery failed',
    );
    return delay === undefined
      ? { status: 'failed', error: failure.message, errorCode: failure.code, nextAttemptAt: null }
      : { status: 'queued', error: failure.message, errorCode: failure.code, nextAttemptAt: deps.clock.now() + delay };
  }
}

/**
 * The retry sweep: every `queued` SMS whose time has come — a retry that fell due, a claim
 * whose process stopped, one written but never handed over. Run it every 10 s.
 */
export async function retryDueSms(deps: SmsDeps, opts: { limit?: number } = {}) {
  const due = await deps.db
    .select()
    .from(smsMessages)
    .where(and(eq(smsMessages.status, 'queued'), lte(smsMessages.nextAttemptAt, deps.clock.now())))
    .orderBy(asc(smsMessages.nextAttemptAt))
    .limit(opts.limit ?? 50);
  const result = { attempted: 0, sent: 0, queued: 0, failed: 0 };
  for (const row of due) {
    const after = await attemptDelivery(deps, row);
    if (!after) continue;
    result.attempted++;
    if (after.status === 'queued') result.queued++;
    else if (after.status === 'failed') result.failed++;
    else result.sent++;
  }
  return result;
}

/**
 * A provider's status callback (public: its signature is the credential). Verified with the
 * instance's auth token over the callback URL we gave it (never the request's Host) and the
 * form fields; moves the SMS it names forward (sent → delivered, undelivered or failed),
 * never back. 403 signature_invalid for a bad or missing signature.
 *
 * The URL names the SMS (`sms_id`, signed with it), so a report that arrives before the
 * send's outcome is written — Twilio may call back within milliseconds — finds its SMS and
 * records its status and message id; the outcome then finds the SMS no longer `queued` and
 * leaves it. Callbacks for sends made before URLs named the SMS match on the message id.
 */
export async function receiveStatusCallback(
  deps: SmsDeps,
  providerName: string,
  instanceId: string,
  smsId: string | undefined,
  rawBody: string,
  header: (name: string) => string | undefined,
) {
  const refused = () =>
    new AppError('FORBIDDEN', { message: 'The status callback’s signature does not verify.', meta: { reason: REASONS.signature_invalid } });
  const provider = PROVIDERS[providerName];
  const settings = provider ? await loadSmsSettings(deps, instanceId) : undefined;
  if (!provider || !settings?.authTokenEncrypted || settings.provider !== provider.name) throw refused();
  let report;
  try {
    report = provider.parseCallback({
      url: statusCallbackUrlOf(deps.config.PUBLIC_URL, provider.name, instanceId, smsId),
      form: formFields(rawBody, false),
      header,
      authToken: deps.cipher.decrypt(settings.authTokenEncrypted),
    });
  } catch (err) {
    if (err instanceof CallbackSignatureInvalid) throw refused();
    throw err;
  }
  const named = smsId ? eq(smsMessages.id, smsId) : eq(smsMessages.providerMessageId, report.providerMessageId);
  const updated = await applyStatusReport(deps, provider.name, instanceId, named, report);
  return { object: 'sms_status_callback' as const, received: true, sms_id: updated?.id ?? null, status: updated?.status ?? null };
}

/**
 * Moves the SMS `named` to the status a provider reported, only forward, recording the
 * message id if it had none and the error (or clearing an earlier attempt's); counted and,
 * when not delivered, logged. Null when it changed nothing (already as far or further).
 */
async function applyStatusReport(
  deps: SmsDeps,
  providerName: string,
  instanceId: string,
  named: SQL,
  report: ProviderStatusReport,
): Promise<SmsRow | null> {
  const behind = (Object.keys(RANK) as SmsStatus[]).filter((s) => RANK[s] < RANK[report.status]);
  if (!behind.length) return null;
  const [updated] = await deps.db
    .update(smsMessages)
    .set({
      status: report.status,
      nextAttemptAt: null,
      providerMessageId: sql`coalesce(${smsMessages.providerMessageId}, ${report.providerMessageId})`,
      ...(report.errorCode ? { errorCode: report.errorCode, error: report.error } : { errorCode: null, error: null }),
      updatedAt: deps.clock.now(),
    })
    .where(and(eq(smsMessages.instanceId, instanceId), named, inArray(smsMessages.status, behind)))
    .returning();
  if (!updated) return null;
  deps.metrics.smsDeliveries.inc({ provider: providerName, status: updated.status });
  if (updated.status === 'failed' || updated.status === 'undelivered') {
    deps.logger.warn({ sms_id: updated.id, status: updated.status, error_code: updated.errorCode }, 'SMS not delivered');
  }
  return updated;
}

/** A `sent` SMS whose status has not moved for this long is asked about (its callback never came: PUBLIC_URL out of Twilio's reach, a lost request)… */
export const SMS_STATUS_CHECK_AFTER_MS = 10 * 60_000;
/** …again every SMS_STATUS_CHECK_AFTER_MS, until this long after it was written: a carrier that reports no delivery leaves it `sent`. */
export const SMS_STATUS_CHECK_UNTIL_MS = 60 * 60_000;

/**
 * The status check: reads from the provider the status of each SMS stuck in `sent` (see
 * SMS_STATUS_CHECK_AFTER_MS) and moves it forward as a callback would. An SMS whose status
 * did not move has its `updated_at` set to the check, so the next one waits its turn. Run it
 * every minute.
 */
export async function checkStuckSms(deps: SmsDeps, opts: { limit?: number } = {}) {
  const now = deps.clock.now();
  const stuck = await deps.db
    .select({ sms: smsMessages, environment: instances.environment })
    .from(smsMessages)
    .innerJoin(instances, eq(instances.id, smsMessages.instanceId))
    .where(
      and(
        eq(smsMessages.status, 'sent'),
        ne(smsMessages.deliveredBy, 'outbox'),
        isNotNull(smsMessages.providerMessageId),
        lte(smsMessages.updatedAt, now - SMS_STATUS_CHECK_AFTER_MS),
        gte(smsMessages.createdAt, now - SMS_STATUS_CHECK_UNTIL_MS),
      ),
    )
    .orderBy(asc(smsMessages.updatedAt))
    .limit(opts.limit ?? 50);
  const result = { checked: 0, moved: 0 };
  for (const { sms, environment } of stuck) {
    const setup = await smsProviderSetup(deps, { id: sms.instanceId, environment });
    let moved: SmsRow | null = null;
    if (setup) {
      result.checked++;
      try {
        const report = await setup.provider.fetchStatus(setup.connection, sms.providerMessageId!);
        moved = await applyStatusReport(deps, setup.provider.name, sms.instanceId, eq(smsMessages.id, sms.id), report);
      } catch (err) {
        deps.logger.warn({ err, sms_id: sms.id }, 'SMS status check failed');
      }
    }
    if (moved) result.moved++;
    else
      await deps.db
        .update(smsMessages)
        .set({ updatedAt: now })
        .where(and(eq(smsMessages.id, sms.id), eq(smsMessages.status, 'sent')));
  }
  return result;
}
