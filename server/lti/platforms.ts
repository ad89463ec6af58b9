import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { ltiPlatforms } from '../db/schema';
import { newId } from '../db/ids';
import type { AuditContext } from '../http/actor';
import { notFound, validationError } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { checkJwksUri } from '../http/remote-jwks';
import type { Environment } from '../instances/instances';
import type { CreatePlatformInput, UpdatePlatformInput } from './schemas';
import { forgetJwks } from './jwks';

export type PlatformRow = typeof ltiPlatforms.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'config' | 'caches'>;

/** The instance a registration belongs to, as BAPI and the dashboard resolve it. */
export interface LtiInstance {
  id: string;
  environment: Environment;
  fapiUrl: string;
}

const loginUrlOf = (fapiUrl: string) => `${fapiUrl}/lti/login`;
export const launchUrlOf = (fapiUrl: string) => `${fapiUrl}/lti/launch`;

const platformView = (r: PlatformRow, fapiUrl: string) => ({
  object: 'lti_platform' as const,
  id: r.id,
  name: r.name,
  issuer: r.issuer,
  client_id: r.clientId,
  authorization_endpoint: r.authorizationEndpoint,
  jwks_uri: r.jwksUri,
  deployment_ids: r.deploymentIds,
  target_link_uris: r.targetLinkUris,
  organizations_from_contexts: r.organizationsFromContexts,
  login_url: loginUrlOf(fapiUrl),
  launch_url: launchUrlOf(fapiUrl),
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** An absolute http(s) URL without credentials or fragment (a browser is sent there, or a launch lands there). */
function browserUrl(param: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw validationError(param, 'invalid_url', `${raw} is not an absolute URL.`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || raw.includes('#')) {
    throw validationError(param, 'invalid_url', 'Use an absolute http(s) URL without credentials or fragment.');
  }
  return raw;
}

const jwksUrl = (d: D, instance: LtiInstance, raw: string) => checkJwksUri(d.config, instance.environment, raw);

const unique = (list: string[]) => [...new Set(list)];

function rethrowTaken(err: unknown): never {
  if (uniqueViolation(err) === 'lti_platforms_issuer_client_uq') {
    throw validationError('client_id', 'taken', 'A platform with this issuer and client_id is already registered.');
  }
  throw err;
}

export async function loadPlatform(db: Db, instanceId: string, id: string): Promise<PlatformRow> {
  const [row] = await db
    .select()
    .from(ltiPlatforms)
    .where(and(eq(ltiPlatforms.id, id), eq(ltiPlatforms.instanceId, instanceId)));
  if (!row) throw notFound('LTI platform');
  return row;
}

export async function createPlatform(deps: D, instance: LtiInstance, input: CreatePlatformInput, ctx: AuditContext) {
  const now = deps.clock.now();
  const values = {
    id: newId('ltip'),
    instanceId: instance.id,
    name: input.name,
    issuer: input.issuer,
    clientId: input.client_id,
    authorizationEndpoint: browserUrl('authorization_endpoint', input.authorization_endpoint),
    jwksUri: jwksUrl(deps, instance, input.jwks_uri),
    deploymentIds: unique(input.deployment_ids),
    targetLinkUris: unique(input.target_link_uris.map((u) => browserUrl('target_link_uris', u))),
    organizationsFromContexts: input.organizations_from_contexts,
    createdAt: now,
    updatedAt: now,
  };
  return deps.db
    .transaction(async (tx) => {
      const [row] = await tx.insert(ltiPlatforms).values(values).returning();
      await audit(
        { db: tx, clock: deps.clock },
        {
          instanceId: instance.id,
          ...ctx,
          action: 'lti_platform.created',
          target: row!.id,
          details: { issuer: row!.issuer, client_id: row!.clientId },
        },
      );
      return platformView(row!, instance.fapiUrl);
    })
    .catch(rethrowTaken);
}

export async function getPlatform(deps: Pick<Deps, 'db'>, instance: LtiInstance, id: string) {
  return platformView(await loadPlatform(deps.db, instance.id, id), instance.fapiUrl);
}

export async function listPlatforms(deps: Pick<Deps, 'db'>, instance: LtiInstance, q: { limit: number; starting_after?: string }) {
  return cursorList(q, newestFirst(ltiPlatforms.id), tableRows(deps.db, ltiPlatforms, eq(ltiPlatforms.instanceId, instance.id)), (r) =>
    platformView(r, instance.fapiUrl),
  );
}

/** The issuer and client_id name the registration and stay; everything else may change. */
export async function updatePlatform(deps: D, instance: LtiInstance, id: string, input: UpdatePlatformInput, ctx: AuditContext) {
  const patch: Partial<typeof ltiPlatforms.$inferInsert> = { updatedAt: deps.clock.now() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.authorization_endpoint !== undefined)
    patch.authorizationEndpoint = browserUrl('authorization_endpoint', input.authorization_endpoint);
  if (input.jwks_uri !== undefined) patch.jwksUri = jwksUrl(deps, instance, input.jwks_uri);
  if (input.deployment_ids !== undefined) patch.deploymentIds = unique(input.deployment_ids);
  if (input.target_link_uris !== undefined)
    patch.targetLinkUris = unique(input.target_link_uris.map((u) => browserUrl('target_link_uris', u)));
  if (input.organizations_from_contexts !== undefined) patch.organizationsFromContexts = input.organizations_from_contexts;
  return deps.db.transaction(async (tx) => {
    await loadPlatform(tx, instance.id, id);
    const [row] = await tx.update(ltiPlatforms).set(patch).where(eq(ltiPlatforms.id, id)).returning();
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId: instance.id, ...ctx, action: 'lti_platform.updated', target: id, details: { fields: Object.keys(input).sort() } },
    );
    forgetJwks(deps, id);
    return platformView(row!, instance.fapiUrl);
  });
}

/** Deletes the registration with its pending logins; its users and their sessions stay. */
export async function deletePlatform(deps: D, instance: LtiInstance, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    await loadPlatform(tx, instance.id, id);
    await tx.delete(ltiPlatforms).where(eq(ltiPlatforms.id, id));
    await audit({ db: tx, clock: deps.clock }, { instanceId: instance.id, ...ctx, action: 'lti_platform.deleted', target: id });
    forgetJwks(deps, id);
    return { object: 'lti_platform' as const, id, deleted: true as const };
  });
}

/**
 * The registration a login initiation names: by (iss, client_id), or by iss alone when the
 * issuer has exactly one registration in the instance. Null when none (or several) match.
 */
export async function findPlatformForLogin(db: Db, instanceId: string, issuer: string, clientId: string | undefined) {
  const rows = await db
    .select()
    .from(ltiPlatforms)
    .where(
      and(
        eq(ltiPlatforms.instanceId, instanceId),
        eq(ltiPlatforms.issuer, issuer),
        clientId !== undefined ? eq(ltiPlatforms.clientId, clientId) : undefined,
      ),
    )
    .limit(2);
  return { platform: rows.length === 1 ? rows[0]! : null, ambiguous: rows.length > 1 };
}
