import type { AuditContext } from '../http/actor';
import { and, eq, like, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { localizationRevisions, localizations, type LocalizationContent } from '../db/schema';
import { notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { findResource, type CatalogResource, type ResourceKind } from './catalog';
import { checkContent } from './validate';

type D = Pick<Deps, 'db' | 'clock'>;
export type LocalizationRow = typeof localizations.$inferSelect;
type RevisionRow = typeof localizationRevisions.$inferSelect;

const resourceKindOf = (resource: string): ResourceKind => resource.slice(0, resource.indexOf('.')) as ResourceKind;

export const localizationView = (r: LocalizationRow) => ({
  object: 'localization' as const,
  id: r.id,
  locale: r.locale,
  resource: r.resource,
  kind: resourceKindOf(r.resource),
  content: r.content,
  enabled: r.enabled,
  updated_by: r.updatedBy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
export type LocalizationView = ReturnType<typeof localizationView>;

const revisionView = (r: RevisionRow) => ({
  object: 'localization_revision' as const,
  id: r.id,
  locale: r.locale,
  resource: r.resource,
  content: r.content,
  enabled: r.enabled,
  actor: r.actor,
  created_at: r.createdAt,
});

/** Email overrides are audited as template changes, the rest as localization changes. */
const auditAction = (resource: string, change: 'updated' | 'deleted' | 'restored') =>
  `${resourceKindOf(resource) === 'email' ? 'email_template' : 'localization'}.${change}`;

function resourceOrThrow(key: string, opts: { messagesDir?: string } = {}): CatalogResource {
  const resource = findResource(key, opts);
  if (!resource)
    throw validationError(
      'resource',
      'unknown_resource',
      `No localizable resource is named ${JSON.stringify(key)}; see the catalog of GET /localizations.`,
    );
  return resource;
}

export interface LocalizationFilter {
  locale?: string;
  resource?: string;
  kind?: ResourceKind;
}

/** An instance's overrides, by resource then locale. */
export async function listLocalizations(deps: Pick<Deps, 'db'>, instanceId: string, f: LocalizationFilter = {}) {
  const filters: SQL[] = [eq(localizations.instanceId, instanceId)];
  if (f.locale) filters.push(eq(localizations.locale, f.locale));
  if (f.resource) filters.push(eq(localizations.resource, f.resource));
  if (f.kind) filters.push(like(localizations.resource, `${f.kind}.%`));
  const rows = await deps.db
    .select()
    .from(localizations)
    .where(and(...filters))
    .orderBy(localizations.resource, localizations.locale);
  return rows.map(localizationView);
}

export async function getLocalization(deps: Pick<Deps, 'db'>, instanceId: string, id: string): Promise<LocalizationRow> {
  const [row] = await deps.db
    .select()
    .from(localizations)
    .where(and(eq(localizations.id, id), eq(localizations.instanceId, instanceId)));
  if (!row) throw notFound('localization');
  return row;
}

export async function findLocalization(deps: Pick<Deps, 'db'>, instanceId: string, resource: string, locale: string) {
  const [row] = await deps.db
    .select()
    .from(localizations)
    .where(and(eq(localizations.instanceId, instanceId), eq(localizations.resource, resource), eq(localizations.locale, locale)));
  return row ?? null;
}

async function recordRevision(deps: D, row: LocalizationRow, actor: string) {
  await deps.db.insert(localizationRevisions).values({
    id: newId('locrev'),
    instanceId: row.instanceId,
    locale: row.locale,
    resource: row.resource,
    content: row.content,
    enabled: row.enabled,
    actor,
    createdAt: deps.clock.now(),
  });
}

export interface SaveInput {
  locale: string;
  resource: string;
  content: unknown;
  enabled?: boolean;
}

/**
 * Creates or replaces the override of a resource in a locale, after validating its
 * content. The saved version joins the revision history; audited in the same transaction.
 */
export async function saveLocalization(
  deps: D,
  instanceId: string,
  input: SaveInput,
  ctx: AuditContext,
  opts: { change?: 'updated' | 'restored'; details?: Record<string, unknown>; messagesDir?: string } = {},
): Promise<{ localization: LocalizationView; created: boolean }> {
  const resource = resourceOrThrow(input.resource, opts);
  const content = await checkContent(resource, input.content);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const existing = await findLocalization(d, instanceId, resource.key, input.locale);
    const enabled = input.enabled ?? existing?.enabled ?? true;
    const [row] = await tx
      .insert(localizations)
      .values({
        id: newId('loc'),
        instanceId,
        locale: input.locale,
        resource: resource.key,
        content,
        enabled,
        updatedBy: ctx.actor,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [localizations.instanceId, localizations.resource, localizations.locale],
        set: { content, enabled, updatedBy: ctx.actor, updatedAt: now },
      })
      .returning();
    await recordRevision(d, row!, ctx.actor);
    await audit(d, {
      instanceId,
      actor: ctx.actor,
      action: auditAction(resource.key, opts.change ?? 'updated'),
      target: row!.id,
      ip: ctx.ip,
      userAgent: ctx.userAgent,
      details: { resource: resource.key, locale: input.locale, enabled, ...opts.details },
    });
    return { localization: localizationView(row!), created: !existing };
  });
}

/** Edits an override's content or enabled flag (content validated as on create). */
export async function updateLocalization(
  deps: D,
  instanceId: string,
  id: string,
  patch: { content?: unknown; enabled?: boolean },
  ctx: AuditContext,
  opts: { messagesDir?: string } = {},
) {
  const row = await getLocalization(deps, instanceId, id);
  const out = await saveLocalization(
    deps,
    instanceId,
    { locale: row.locale, resource: row.resource, content: patch.content ?? row.content, enabled: patch.enabled ?? row.enabled },
    ctx,
    opts,
  );
  return out.localization;
}

/** Removes an override: the base copy renders again. Its revisions stay, to restore. */
export async function deleteLocalization(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(localizations)
      .where(and(eq(localizations.id, id), eq(localizations.instanceId, instanceId)))
      .returning();
    if (!row) throw notFound('localization');
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: ctx.actor,
        action: auditAction(row.resource, 'deleted'),
        target: row.id,
        ip: ctx.ip,
        userAgent: ctx.userAgent,
        details: { resource: row.resource, locale: row.locale },
      },
    );
    return row;
  });
}

/** The saved versions of a resource's override in a locale, newest first. */
export async function listRevisions(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { resource: string; locale: string; limit: number; starting_after?: string },
) {
  const filters: SQL[] = [
    eq(localizationRevisions.instanceId, instanceId),
    eq(localizationRevisions.resource, q.resource),
    eq(localizationRevisions.locale, q.locale),
  ];
  return cursorList(q, newestFirst(localizationRevisions.id), tableRows(deps.db, localizationRevisions, ...filters), revisionView);
}

/**
 * Saves a revision's content as the override of its resource and locale again
 * (validated again: what was valid then must still be). Audited as a restore.
 */
export async function restoreRevision(deps: D, instanceId: string, revisionId: string, ctx: AuditContext, expect?: { resource: string }) {
  const [rev] = await deps.db
    .select()
    .from(localizationRevisions)
    .where(and(eq(localizationRevisions.id, revisionId), eq(localizationRevisions.instanceId, instanceId)));
  if (!rev || (expect && rev.resource !== expect.resource)) throw notFound('revision');
  const out = await saveLocalization(
    deps,
    instanceId,
    { locale: rev.locale, resource: rev.resource, content: rev.content as LocalizationContent, enabled: true },
    ctx,
    { change: 'restored', details: { revision_id: rev.id } },
  );
  return out.localization;
}
