import { createHash } from 'node:crypto';
import type { Deps } from '../deps';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import { getInstance, updateInstanceSettings } from '../instances/instances';
import { instanceSettings } from '../instances/settings';

/**
 * Allowlist identifiers: the entries of the instance's `allowlist` setting (restricted
 * sign-up) as resources with ids (Clerk's /v1/allowlist_identifiers). An entry is an
 * address (`ann@acme.com`) or a domain (`acme.com`, `@acme.com`); its id is derived from the
 * normalized entry, so it is stable and needs no table of its own.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const normalize = (identifier: string) => identifier.trim().toLowerCase();

function allowlistIdentifierId(identifier: string): string {
  const digest = createHash('sha256').update(normalize(identifier)).digest();
  let out = '';
  for (let i = 0; i < 26; i++) out += CROCKFORD[digest[i]! % 32];
  return `alid_${out}`;
}

function allowlistIdentifierView(instanceId: string, identifier: string, at: number) {
  return {
    object: 'allowlist_identifier' as const,
    id: allowlistIdentifierId(identifier),
    identifier,
    identifier_type: identifier.includes('@') && !identifier.startsWith('@') ? ('email_address' as const) : ('domain' as const),
    instance_id: instanceId,
    invitation_id: null,
    created_at: at,
    updated_at: at,
  };
}

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'config'>;

async function currentAllowlist(deps: D, instanceId: string) {
  const row = await getInstance(deps, instanceId);
  return { list: instanceSettings(row.settings).allowlist, at: row.createdAt };
}

export async function listAllowlistIdentifiers(deps: D, instanceId: string) {
  const { list, at } = await currentAllowlist(deps, instanceId);
  return { object: 'list' as const, data: list.map((i) => allowlistIdentifierView(instanceId, i, at)), has_more: false };
}

/**
 * Adds an entry (a repeat is a no-op answering the existing entry). The list is read and
 * written back under the instance's row lock, so concurrent adds and deletes keep each other.
 */
export async function addAllowlistIdentifier(deps: D, instanceId: string, identifier: string, ctx: AuditContext) {
  const id = allowlistIdentifierId(identifier);
  let entry = identifier.trim();
  let at = deps.clock.now();
  await updateInstanceSettings(
    deps,
    instanceId,
    ({ allowlist }) => {
      const existing = allowlist.find((i) => allowlistIdentifierId(i) === id);
      if (existing) {
        entry = existing;
        return null;
      }
      if (allowlist.length >= 1000)
        throw new AppError('VALIDATION_FAILED', {
          message: 'The allowlist holds at most 1000 entries.',
          meta: { param: 'identifier', reason: 'too_large' },
        });
      at = deps.clock.now();
      return { allowlist: [...allowlist, entry] };
    },
    ctx,
    'allowlist_identifier.created',
  );
  return allowlistIdentifierView(instanceId, entry, at);
}

export async function deleteAllowlistIdentifier(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  await updateInstanceSettings(
    deps,
    instanceId,
    ({ allowlist }) => {
      const entry = allowlist.find((i) => allowlistIdentifierId(i) === id);
      if (!entry) throw notFound('allowlist identifier');
      return { allowlist: allowlist.filter((i) => i !== entry) };
    },
    ctx,
    'allowlist_identifier.deleted',
  );
  return { object: 'allowlist_identifier' as const, id, deleted: true as const };
}
