import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { webhookEndpoints } from '../db/schema';
import { EVENT_TYPES } from '../events/types';
import { notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { checkTargetUrl, resolveTarget, TargetRefused } from '../infra/ssrf';
import { generateWebhookSecret } from './signing';
import { refusalError } from '../http/outbound';
import { targetPolicy } from '../http/outbound';
import { PREVIOUS_SECRET_TTL_MS } from './policy';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'config' | 'dns'>;

export interface WebhookInstance {
  id: string;
  environment: 'test' | 'live';
}

export interface ActorContext {
  actor: string;
  ip?: string | null;
  userAgent?: string | null;
}

export const endpointView = (r: EndpointRow) => ({
  object: 'webhook_endpoint' as const,
  id: r.id,
  url: r.url,
  description: r.description,
  event_types: r.eventTypes,
  disabled: r.disabled,
  disabled_reason: r.disabledReason,
  failing_since: r.failingSince,
  svix_headers: r.svixHeaders,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** `*` alone, or known event types (deduplicated, sorted); anything else is a 422 naming the type. */
function normaliseEventTypes(types: string[]): string[] {
  if (types.includes('*')) return ['*'];
  const unknown = types.find((t) => !KNOWN_TYPES.has(t));
  if (unknown !== undefined) throw validationError('event_types', 'unknown_event_type', `${unknown} is not an event type.`);
  return [...new Set(types)].sort();
}

/** The URL's shape and, when its host resolves, every address it resolves to. A name that does not resolve yet is accepted. */
async function checkUrl(deps: D, instance: WebhookInstance, raw: string): Promise<string> {
  const policy = targetPolicy(deps.config, instance.environment);
  try {
    const url = checkTargetUrl(raw, policy);
    await resolveTarget(url, policy, deps.dns).catch((e: unknown) => {
      if (!(e instanceof TargetRefused && e.reason === 'unresolvable')) throw e;
    });
    return url.toString();
  } catch (e) {
    if (e instanceof TargetRefused && e.reason !== 'unresolvable')
      throw refusalError('url', { reason: e.reason, message: e.message }, instance.environment);
    throw e;
  }
}

export async function loadEndpoint(db: Db, instanceId: string, id: string): Promise<EndpointRow> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.instanceId, instanceId)));
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export interface CreateEndpointInput {
  url: string;
  description?: string;
  event_types: string[];
  disabled?: boolean;
  svix_headers?: boolean;
}

/** Creates an endpoint; the only answer that carries the secret besides the reveal route. */
export async function createEndpoint(deps: D, instance: WebhookInstance, input: CreateEndpointInput, ctx: ActorContext) {
  const url = await checkUrl(deps, instance, input.url);
  const eventTypes = normaliseEventTypes(input.event_types);
  const secret = generateWebhookSecret();
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newId('whep'),
        instanceId: instance.id,
        url,
        description: input.description ?? '',
        eventTypes,
        disabled: input.disabled ?? false,
        svixHeaders: input.svix_headers ?? false,
        secretEnc: deps.cipher.encrypt(secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId: instance.id, ...ctx, action: 'webhook_endpoint.created', target: row!.id, details: { url } },
    );
    return { ...endpointView(row!), secret };
  });
}

export async function getEndpoint(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return endpointView(await loadEndpoint(deps.db, instanceId, id));
}

export async function listEndpoints(deps: Pick<Deps, 'db'>, instanceId: string, q: { limit: number; starting_after?: string }) {
  return cursorList(
    q,
    newestFirst(webhookEndpoints.id),
    tableRows(deps.db, webhookEndpoints, eq(webhookEndpoints.instanceId, instanceId)),
    endpointView,
  );
}

export interface UpdateEndpointInput {
  url?: string;
  description?: string;
  event_types?: string[];
  disabled?: boolean;
  svix_headers?: boolean;
}

/** Enabling an endpoint again clears why it was disabled and its failure streak. */
export async function updateEndpoint(deps: D, instance: WebhookInstance, id: string, input: UpdateEndpointInput, ctx: ActorContext) {
  const patch: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: deps.clock.now() };
  if (input.url !== undefined) patch.url = await checkUrl(deps, instance, input.url);
  if (input.event_types !== undefined) patch.eventTypes = normaliseEventTypes(input.event_types);
  if (input.description !== undefined) patch.description = input.description;
  if (input.svix_headers !== undefined) patch.svixHeaders = input.svix_headers;
  if (input.disabled !== undefined) {
    patch.disabled = input.disabled;
    if (!input.disabled) Object.assign(patch, { disabledReason: null, failingSince: null });
  }
  return deps.db.transaction(async (tx) => {
    await loadEndpoint(tx, instance.id, id);
    const [row] = await tx.update(webhookEndpoints).set(patch).where(eq(webhookEndpoints.id, id)).returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...ctx,
        action: 'webhook_endpoint.updated',
        target: id,
        details: { fields: Object.keys(input).sort() },
      },
    );
    return endpointView(row!);
  });
}

/** Deletes the endpoint with its messages and attempts. */
export async function deleteEndpoint(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, id: string, ctx: ActorContext) {
  return deps.db.transaction(async (tx) => {
    await loadEndpoint(tx, instanceId, id);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'webhook_endpoint.deleted', target: id });
    return { object: 'webhook_endpoint' as const, id, deleted: true as const };
  });
}

const secretView = (secret: string, previousExpiresAt: number | null) => ({
  object: 'webhook_endpoint_secret' as const,
  secret,
  /** Until then the previous secret signs too (a second signature in webhook-signature). */
  previous_secret_expires_at: previousExpiresAt,
});

/** Shows the current secret (audited). */
export async function revealSecret(deps: Pick<Deps, 'db' | 'clock' | 'cipher'>, instanceId: string, id: string, ctx: ActorContext) {
  return deps.db.transaction(async (tx) => {
    const row = await loadEndpoint(tx, instanceId, id);
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'webhook_endpoint.secret_revealed', target: id });
    const live = row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > deps.clock.now();
    return secretView(deps.cipher.decrypt(row.secretEnc), live ? row.previousSecretExpiresAt : null);
  });
}

/** A new secret; the current one keeps signing beside it for 24 h. */
export async function rotateSecret(deps: Pick<Deps, 'db' | 'clock' | 'cipher'>, instanceId: string, id: string, ctx: ActorContext) {
  const secret = generateWebhookSecret();
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const row = await loadEndpoint(tx, instanceId, id);
    const previousExpiresAt = now + PREVIOUS_SECRET_TTL_MS;
    await tx
      .update(webhookEndpoints)
      .set({
        secretEnc: deps.cipher.encrypt(secret),
        previousSecretEnc: row.secretEnc,
        previousSecretExpiresAt: previousExpiresAt,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id));
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'webhook_endpoint.secret_rotated', target: id });
    return secretView(secret, previousExpiresAt);
  });
}

/** The secrets that sign a delivery now: the current one, and the previous one within 24 h of a rotation. */
export function signingSecrets(deps: Pick<Deps, 'cipher'>, row: EndpointRow, now: number): string[] {
  const secrets = [deps.cipher.decrypt(row.secretEnc)];
  if (row.previousSecretEnc && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now) {
    secrets.push(deps.cipher.decrypt(row.previousSecretEnc));
  }
  return secrets;
}
