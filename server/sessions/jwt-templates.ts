import { randomBytes } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { jwtTemplates, type JwtTemplateRow } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { AppError, notFound, validationError } from '../http/errors';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import {
  claimsTemplateSchemaFor,
  JWT_TEMPLATE_RESERVED_CLAIMS,
  renderClaims,
  RENDERED_MAX_BYTES,
  usesOrgShortcodes,
} from '../instances/claims-template';
import type { InstanceContext } from '../instances/instances';
import { currentSigner } from '../signing/signing-keys';
import { liveClientSession } from './clients';
import { liveSession } from './sessions';
import { claimsOrg } from './org-claims';
import { activeOrganizationId, claimsUser, signWithSessionKey } from './tokens';

/**
 * Named JWT templates, Clerk's `session.getToken({ template })`: claims written like the
 * session token template (`{{user.…}}` and the active organization's `{{org.…}}` shortcodes,
 * server/instances/claims-template.ts; `aud` and `org_*` may be set, the session token's other
 * built-in claims may not), a lifetime and an allowed clock skew. A token is minted for a live
 * session and signed with the instance's session signing key (same `kid`, same JWKS), so
 * whatever verifies session tokens verifies these.
 *
 * Its claims: the rendered template, then `iss` (fapi_url), `sub` (the user), `iat`,
 * `exp` (iat + lifetime, never past the session's end), `nbf` (iat − allowed clock skew),
 * `jti`, `azp` when the FAPI saw an allowed origin, and `act` on an impersonation session.
 * Like Clerk's template tokens there is no `sid` (nor `sv`/`sts`): a template token is not a
 * session token, and Latchkey's session verification refuses it.
 */
const JWT_TEMPLATE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const LIFETIME_MIN = 30;
/** An hour, as the session token's: a retired signing key stays published 65 minutes (server/signing/signing-keys.ts), so every token stays verifiable through a rotation. */
const LIFETIME_MAX = 3600;
const LIFETIME_DEFAULT = 60;
const CLOCK_SKEW_MAX = 30;
const CLOCK_SKEW_DEFAULT = 5;
/** Templates an instance may hold. */
const MAX_TEMPLATES = 100;

const nameSchema = z.string().regex(JWT_TEMPLATE_NAME, 'use 1 to 64 letters, digits, _ or -');
const lifetimeSchema = z
  .number()
  .int()
  .min(LIFETIME_MIN)
  .max(LIFETIME_MAX)
  .meta({ description: `Seconds a token lives (${LIFETIME_MIN}–${LIFETIME_MAX}, default ${LIFETIME_DEFAULT})` });
const skewSchema = z
  .number()
  .int()
  .min(0)
  .max(CLOCK_SKEW_MAX)
  .meta({ description: `Seconds nbf is set before iat (0–${CLOCK_SKEW_MAX}, default ${CLOCK_SKEW_DEFAULT})` });
const jwtTemplateClaimsSchema = claimsTemplateSchemaFor(JWT_TEMPLATE_RESERVED_CLAIMS).meta({
  description:
    'The claims: a JSON object of at most 4 KiB and 3 levels (422 too_large, 422 too_deep), claim names of 1 to 64 characters (422 invalid_key), none of the built-in claims but aud and org_id, org_role, org_slug, org_permissions (422 reserved_claim); a string may be or contain {{user.<field>}}, {{org.<field>}} or {{org_membership.<field>}} shortcodes (the active organization’s; 422 unknown_shortcode for an unknown one).',
});

/** Clerk's SDK may send these; Latchkey signs with the instance key only (RS256). */
const signingFields = {
  custom_signing_key: z.literal(false).optional().meta({ description: 'Custom signing keys are not supported: false or absent' }),
  signing_algorithm: z.literal('RS256').nullish(),
};

export const createJwtTemplateBody = z.strictObject({
  name: nameSchema,
  claims: jwtTemplateClaimsSchema,
  lifetime: lifetimeSchema.nullish(),
  allowed_clock_skew: skewSchema.nullish(),
  ...signingFields,
});
export type CreateJwtTemplateInput = z.output<typeof createJwtTemplateBody>;

export const updateJwtTemplateBody = z.strictObject({
  name: nameSchema.optional(),
  claims: jwtTemplateClaimsSchema.optional(),
  lifetime: lifetimeSchema.nullish(),
  allowed_clock_skew: skewSchema.nullish(),
  ...signingFields,
});
export type UpdateJwtTemplateInput = z.output<typeof updateJwtTemplateBody>;

export const jwtTemplateSchema = z.object({
  object: z.literal('jwt_template'),
  id: z.string(),
  name: z.string(),
  claims: z.record(z.string(), z.unknown()),
  lifetime: z.number().int(),
  allowed_clock_skew: z.number().int(),
  custom_signing_key: z.literal(false),
  signing_algorithm: z.literal('RS256'),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export const jwtTemplateListSchema = cursorPageSchema(jwtTemplateSchema);
export const deletedJwtTemplateSchema = z.object({ object: z.literal('jwt_template'), id: z.string(), deleted: z.literal(true) });
export const listJwtTemplatesQuery = z.strictObject({ ...pageQuery });
export const templateTokenSchema = z.object({ object: z.literal('token'), jwt: z.string() });
/**
 * `POST /v1/sessions/:id/tokens[/:template]` (`@clerk/backend`'s `sessions.getToken(id, template, expiresInSeconds)`):
 * the token's lifetime, bounded as a template's; never past the session's end.
 */
export const mintTokenBody = z.strictObject({
  expires_in_seconds: lifetimeSchema.nullish().meta({
    description: `Seconds the token lives (${LIFETIME_MIN}–${LIFETIME_MAX}; default: the template's lifetime, or the instance's session token lifetime), never past the session's end`,
  }),
});

const jwtTemplateView = (r: JwtTemplateRow) => ({
  object: 'jwt_template' as const,
  id: r.id,
  name: r.name,
  claims: r.claims,
  lifetime: r.lifetime,
  allowed_clock_skew: r.allowedClockSkew,
  custom_signing_key: false as const,
  signing_algorithm: 'RS256' as const,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

type D = Pick<Deps, 'db' | 'clock'>;

function rethrowTaken(err: unknown): never {
  if (uniqueViolation(err) === 'jwt_templates_instance_name_uq')
    throw validationError('name', 'taken', 'A JWT template with this name already exists.');
  throw err;
}

async function loadTemplate(db: Db, instanceId: string, id: string): Promise<JwtTemplateRow> {
  const [row] = await db
    .select()
    .from(jwtTemplates)
    .where(and(eq(jwtTemplates.id, id), eq(jwtTemplates.instanceId, instanceId)));
  if (!row) throw notFound('JWT template');
  return row;
}

export async function createJwtTemplate(deps: D, instanceId: string, input: CreateJwtTemplateInput, ctx: AuditContext) {
  const now = deps.clock.now();
  return deps.db
    .transaction(async (tx) => {
      const [held] = await tx.select({ n: count() }).from(jwtTemplates).where(eq(jwtTemplates.instanceId, instanceId));
      if ((held?.n ?? 0) >= MAX_TEMPLATES)
        throw validationError('name', 'too_large', `An instance holds at most ${MAX_TEMPLATES} JWT templates.`);
      const [row] = await tx
        .insert(jwtTemplates)
        .values({
          id: newId('jtmp'),
          instanceId,
          name: input.name,
          claims: input.claims,
          lifetime: input.lifetime ?? LIFETIME_DEFAULT,
          allowedClockSkew: input.allowed_clock_skew ?? CLOCK_SKEW_DEFAULT,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await audit(
        { db: tx, clock: deps.clock },
        { instanceId, ...ctx, action: 'jwt_template.created', target: row!.id, details: { name: row!.name } },
      );
      return jwtTemplateView(row!);
    })
    .catch(rethrowTaken);
}

export async function getJwtTemplate(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return jwtTemplateView(await loadTemplate(deps.db, instanceId, id));
}

export async function listJwtTemplates(deps: Pick<Deps, 'db'>, instanceId: string, q: { limit: number; starting_after?: string }) {
  return cursorList(
    q,
    newestFirst(jwtTemplates.id),
    tableRows(deps.db, jwtTemplates, eq(jwtTemplates.instanceId, instanceId)),
    jwtTemplateView,
  );
}

/** A field absent stays; `lifetime` or `allowed_clock_skew` null goes back to its default. */
export async function updateJwtTemplate(deps: D, instanceId: string, id: string, input: UpdateJwtTemplateInput, ctx: AuditContext) {
  const patch: Partial<typeof jwtTemplates.$inferInsert> = { updatedAt: deps.clock.now() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.claims !== undefined) patch.claims = input.claims;
  if (input.lifetime !== undefined) patch.lifetime = input.lifetime ?? LIFETIME_DEFAULT;
  if (input.allowed_clock_skew !== undefined) patch.allowedClockSkew = input.allowed_clock_skew ?? CLOCK_SKEW_DEFAULT;
  return deps.db
    .transaction(async (tx) => {
      await loadTemplate(tx, instanceId, id);
      const [row] = await tx.update(jwtTemplates).set(patch).where(eq(jwtTemplates.id, id)).returning();
      await audit(
        { db: tx, clock: deps.clock },
        { instanceId, ...ctx, action: 'jwt_template.updated', target: id, details: { fields: Object.keys(input).sort() } },
      );
      return jwtTemplateView(row!);
    })
    .catch(rethrowTaken);
}

export async function deleteJwtTemplate(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const row = await loadTemplate(tx, instanceId, id);
    await tx.delete(jwtTemplates).where(eq(jwtTemplates.id, id));
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId, ...ctx, action: 'jwt_template.deleted', target: id, details: { name: row.name } },
    );
    return { object: 'jwt_template' as const, id, deleted: true as const };
  });
}

async function templateNamed(db: Db, instanceId: string, name: string): Promise<JwtTemplateRow> {
  const [row] = JWT_TEMPLATE_NAME.test(name)
    ? await db
        .select()
        .from(jwtTemplates)
        .where(and(eq(jwtTemplates.instanceId, instanceId), eq(jwtTemplates.name, name)))
    : [];
  if (!row) throw new AppError('NOT_FOUND', { message: `No JWT template named ${name.slice(0, 64)} exists.`, meta: { param: 'template' } });
  return row;
}

type MintDeps = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;

/** Signs a token of a template for a (checked, live) session; `lifetime` (seconds) instead of the template's. */
async function signTemplateJwt(
  deps: MintDeps,
  instance: InstanceContext,
  template: JwtTemplateRow,
  s: { userId: string; expireAt: number; actor: { sub: string } | null; lastActiveOrganizationId: string | null },
  azp: string | null,
  lifetime: number = template.lifetime,
): Promise<string> {
  const user = await claimsUser(deps.db, instance.id, s.userId);
  if (!user) throw notFound('session');
  const orgId = activeOrganizationId(instance, s);
  const org = orgId && usesOrgShortcodes(template.claims) ? await claimsOrg(deps.db, instance.id, orgId, s.userId) : null;
  const custom = renderClaims(template.claims, { user, org }, JWT_TEMPLATE_RESERVED_CLAIMS);
  // A token without the claims its consumer expects is worse than none (the session token, in a cookie, goes without them instead).
  if (!custom)
    throw validationError('template', 'too_large', `The template's claims for this user weigh more than ${RENDERED_MAX_BYTES} bytes.`);
  const claims: Record<string, unknown> = { ...custom };
  if (azp) claims.azp = azp;
  if (s.actor) claims.act = { sub: s.actor.sub };
  const signer = await currentSigner(deps, instance.id);
  const now = Math.floor(deps.clock.now() / 1000);
  const exp = Math.max(now, Math.min(now + lifetime, Math.floor(s.expireAt / 1000)));
  return signWithSessionKey(signer, instance, claims, {
    sub: s.userId,
    iat: now,
    nbf: now - template.allowedClockSkew,
    exp,
    jti: randomBytes(10).toString('hex'),
  });
}

/** FAPI: a template token for a session of this client (the session token's checks, server/sessions/clients.ts). */
export async function clientTemplateToken(
  deps: MintDeps & Pick<Deps, 'cacheInvalidation'>,
  instance: InstanceContext,
  clientId: string,
  sessionId: string,
  templateName: string,
  azp: string | null,
) {
  const { session } = await liveClientSession(deps, instance, clientId, sessionId);
  const template = await templateNamed(deps.db, instance.id, templateName);
  return { object: 'token' as const, jwt: await signTemplateJwt(deps, instance, template, session, azp) };
}

/** BAPI: a template token for a live session of the instance (the session token's checks, server/sessions/sessions.ts); `lifetime` instead of the template's. */
export async function sessionTemplateToken(
  deps: MintDeps & Pick<Deps, 'cacheInvalidation'>,
  instance: InstanceContext,
  sessionId: string,
  templateName: string,
  lifetime?: number,
) {
  const { session } = await liveSession(deps, instance.id, sessionId);
  const template = await templateNamed(deps.db, instance.id, templateName);
  return { object: 'token' as const, jwt: await signTemplateJwt(deps, instance, template, session, null, lifetime) };
}
