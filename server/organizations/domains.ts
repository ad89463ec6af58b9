import { randomBytes } from 'node:crypto';
import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { organizationDomains, organizationMemberships, organizations, organizationSuggestions, type EnrollmentMode } from '../db/schema';
import { checkCode } from '../verification/codes';
import { sendCode } from '../verification/send-code';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import { lightList, oldestFirst, tableRows } from '../http/cursor-list';
import { newId } from '../db/ids';
import { getInstance } from '../instances/instances';
import { instanceSettings } from '../instances/settings';
import { domainView, txtRecordName, type DomainView } from './domain-view';
import { createEnrollmentInvitation } from './invitations';
import { loadOrganization } from './organization-view';
import { isPublicEmailDomain } from './public-email-domains';

/**
 * Organization domains. A domain is verified by an email code sent to an address at
 * that domain (`email_code`), by a TXT record `_latchkey-verification.<domain>` holding
 * the domain's `txt_record.value` (`dns_record`, looked up through deps.txtResolver), or by the
 * operator on BAPI (`admin`). A domain verified in one organization cannot be verified
 * in another of the same instance. Once verified, its enrollment mode applies to new
 * users with a verified address at it (enrollUserByEmailDomain).
 */
type DomainRow = typeof organizationDomains.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'>;

async function loadDomain(db: Db, instanceId: string, organizationId: string, id: string) {
  const [row] = await db
    .select()
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.instanceId, instanceId),
        eq(organizationDomains.organizationId, organizationId),
        eq(organizationDomains.id, id),
      ),
    );
  if (!row) throw notFound('domain');
  return row;
}

/** 409 when another organization of the instance already verified this domain. */
async function assertNotVerifiedElsewhere(db: Db, instanceId: string, d: Pick<DomainRow, 'name' | 'organizationId'>) {
  const [other] = await db
    .select({ id: organizationDomains.id })
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.instanceId, instanceId),
        eq(organizationDomains.name, d.name),
        eq(organizationDomains.verificationStatus, 'verified'),
        ne(organizationDomains.organizationId, d.organizationId),
      ),
    );
  if (other)
    throw new AppError('CONFLICT', { message: 'Another organization has already verified this domain.', meta: { reason: 'domain_taken' } });
}

export async function createDomain(
  deps: D,
  instanceId: string,
  orgIdOrSlug: string,
  input: { name: string; enrollment_mode?: EnrollmentMode; verified?: boolean },
): Promise<DomainView> {
  if (isPublicEmailDomain(input.name)) {
    throw validationError('name', 'public_email_domain', `${input.name} is a public email provider; anyone can have an address there.`);
  }
  return deps.db
    .transaction(async (tx) => {
      const org = await loadOrganization(tx, instanceId, orgIdOrSlug);
      const now = deps.clock.now();
      const row = {
        id: newId('orgdmn'),
        instanceId,
        organizationId: org.id,
        name: input.name,
        enrollmentMode: input.enrollment_mode ?? ('manual_invitation' as const),
        verificationStatus: input.verified ? ('verified' as const) : ('unverified' as const),
        verificationStrategy: input.verified ? 'admin' : null,
        affiliationEmailAddress: null,
        txtRecordValue: `latchkey-verification=${randomBytes(16).toString('hex')}`,
        verifiedAt: input.verified ? now : null,
        createdAt: now,
        updatedAt: now,
      };
      if (input.verified) await assertNotVerifiedElsewhere(tx, instanceId, row);
      const [inserted] = await tx.insert(organizationDomains).values(row).returning();
      const view = domainView(inserted!);
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'organizationDomain.created', view);
      return view;
    })
    .catch((err: unknown) => {
      if (uniqueViolation(err) === 'organization_domains_uq') {
        throw new AppError('CONFLICT', {
          message: 'This organization already has that domain.',
          meta: { reason: 'duplicate_domain', param: 'name' },
        });
      }
      throw err;
    });
}

export async function getDomain(deps: Pick<Deps, 'db'>, instanceId: string, orgIdOrSlug: string, id: string) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  return domainView(await loadDomain(deps.db, instanceId, org.id, id));
}

export async function listDomains(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  orgIdOrSlug: string,
  q: { limit: number; starting_after?: string },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  return lightList(
    q,
    oldestFirst(organizationDomains.id),
    tableRows(deps.db, organizationDomains, eq(organizationDomains.organizationId, org.id)),
    domainView,
  );
}

async function saveDomain(d: D, instanceId: string, id: string, patch: Partial<DomainRow>) {
  const [row] = await d.db
    .update(organizationDomains)
    .set({ ...patch, updatedAt: d.clock.now() })
    .where(eq(organizationDomains.id, id))
    .returning();
  const view = domainView(row!);
  await emitEvent(d, instanceId, 'organizationDomain.updated', view);
  return view;
}

const verifiedBy = (strategy: string, now: number): Partial<DomainRow> => ({
  verificationStatus: 'verified',
  verificationStrategy: strategy,
  verifiedAt: now,
});

/** Changes the enrollment mode, or (BAPI) marks the domain verified or unverified by the operator. organizationDomain.updated. */
export async function updateDomain(
  deps: D,
  instanceId: string,
  orgIdOrSlug: string,
  id: string,
  input: { enrollment_mode?: EnrollmentMode; verified?: boolean },
) {
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug);
    const current = await loadDomain(tx, instanceId, org.id, id);
    const patch: Partial<DomainRow> = {};
    if (input.enrollment_mode !== undefined) patch.enrollmentMode = input.enrollment_mode;
    if (input.verified === true && current.verificationStatus !== 'verified') {
      await assertNotVerifiedElsewhere(tx, instanceId, current);
      Object.assign(patch, verifiedBy('admin', deps.clock.now()));
    }
    if (input.verified === false) Object.assign(patch, { verificationStatus: 'unverified', verificationStrategy: null, verifiedAt: null });
    return saveDomain({ db: tx, clock: deps.clock }, instanceId, id, patch);
  });
}

export async function deleteDomain(deps: D, instanceId: string, orgIdOrSlug: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug);
    const current = await loadDomain(tx, instanceId, org.id, id);
    await tx.delete(organizationDomains).where(eq(organizationDomains.id, id));
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'organizationDomain.deleted', { ...domainView(current), deleted: true });
    return { object: 'organization_domain' as const, id, deleted: true as const };
  });
}

export const emailDomain = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * Starts a verification. `email_code`: the address must be at the domain; a code goes
 * to it (reissue caps apply) and the address is recorded as the affiliation address.
 * `dns_record`: nothing to send; the answer names the TXT record to publish.
 */
export async function prepareDomainVerification(
  deps: Deps,
  instanceId: string,
  orgIdOrSlug: string,
  id: string,
  input: { strategy: 'email_code'; affiliation_email_address: string } | { strategy: 'dns_record' },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const current = await loadDomain(deps.db, instanceId, org.id, id);
  if (input.strategy === 'dns_record') return domainView(current);
  if (emailDomain(input.affiliation_email_address) !== current.name) {
    throw validationError('affiliation_email_address', 'wrong_domain', `The address must be at ${current.name}.`);
  }
  await sendCode(deps, {
    instanceId,
    attemptId: current.id,
    purpose: 'domain_affiliation',
    address: input.affiliation_email_address,
    to: input.affiliation_email_address,
  });
  const [row] = await deps.db
    .update(organizationDomains)
    .set({ affiliationEmailAddress: input.affiliation_email_address, updatedAt: deps.clock.now() })
    .where(eq(organizationDomains.id, id))
    .returning();
  return domainView(row!);
}

/** TXT records come in chunks that join into one value; a failed lookup says why (its DNS error code). */
async function txtValues(deps: Pick<Deps, 'txtResolver'>, name: string): Promise<{ values: string[]; error: string | null }> {
  try {
    return { values: (await deps.txtResolver.resolveTxt(name)).map((chunks) => chunks.join('')), error: null };
  } catch (err) {
    return { values: [], error: String((err as { code?: unknown }).code ?? 'ESERVFAIL') };
  }
}

/** Why the TXT record did not verify, in words an IT admin can act on. */
function txtFailure(name: string, found: { values: string[]; error: string | null }): string {
  if (found.error === null && found.values.length > 0)
    return `The TXT records at ${name} do not hold the expected value (found ${found.values.length}); check the value was copied whole.`;
  if (found.error === null || found.error === 'ENOTFOUND' || found.error === 'ENODATA') {
    return `No TXT record ${name} with the expected value was found. No TXT record exists there yet; DNS changes can take a while to show.`;
  }
  return `No TXT record ${name} with the expected value was found: the DNS lookup failed (${found.error}); try again shortly.`;
}

/** Completes a verification: the email code, or a TXT lookup. organizationDomain.updated once verified. */
export async function attemptDomainVerification(
  deps: Deps,
  instanceId: string,
  orgIdOrSlug: string,
  id: string,
  input: { strategy: 'email_code'; code: string } | { strategy: 'dns_record' },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const current = await loadDomain(deps.db, instanceId, org.id, id);
  if (current.verificationStatus === 'verified') return domainView(current);
  if (input.strategy === 'dns_record') {
    const found = await txtValues(deps, txtRecordName(current.name));
    const checkedAt = deps.clock.now();
    if (!found.values.includes(current.txtRecordValue)) {
      // The failed check is kept (when, and why) so the portal and the console show it later; no event: nothing changed.
      const reason = txtFailure(txtRecordName(current.name), found);
      await deps.db
        .update(organizationDomains)
        .set({ lastCheckedAt: checkedAt, verificationError: reason })
        .where(eq(organizationDomains.id, id));
      throw validationError('strategy', 'txt_record_not_found', reason);
    }
    return deps.db.transaction(async (tx) => {
      await assertNotVerifiedElsewhere(tx, instanceId, current);
      return saveDomain({ db: tx, clock: deps.clock }, instanceId, id, {
        ...verifiedBy('dns_record', checkedAt),
        lastCheckedAt: checkedAt,
        verificationError: null,
      });
    });
  }
  const outcome = await deps.db.transaction(async (tx) => {
    const check = await checkCode({ ...deps, db: tx }, { attemptId: current.id, purpose: 'domain_affiliation', code: input.code });
    // A failed try must commit (it counts): answer the error after the transaction.
    if (!check.ok) return { error: check.error };
    await assertNotVerifiedElsewhere(tx, instanceId, current);
    return { view: await saveDomain({ db: tx, clock: deps.clock }, instanceId, id, verifiedBy('email_code', deps.clock.now())) };
  });
  if ('error' in outcome) throw outcome.error;
  return outcome.view;
}

/**
 * Domain enrollment for a user's verified addresses, inside the caller's transaction
 * (user creation): for each verified domain of the instance an address is at, an
 * `automatic_invitation` domain invites the user (organizationInvitation.created, the
 * instance's default role) and an `automatic_suggestion` domain offers the organization
 * (a suggestion the user accepts on the FAPI). `manual_invitation` does nothing; neither
 * does a domain of an organization the user already belongs to.
 */
export async function enrollUserByEmailDomain(deps: D, instanceId: string, userId: string, verifiedEmails: string[]) {
  const byDomain = new Map(verifiedEmails.map((e) => [emailDomain(e), e]));
  if (byDomain.size === 0) return;
  const domains = await deps.db
    .select({ domain: organizationDomains, org: organizations })
    .from(organizationDomains)
    .innerJoin(organizations, eq(organizations.id, organizationDomains.organizationId))
    .where(
      and(
        eq(organizationDomains.instanceId, instanceId),
        inArray(organizationDomains.name, [...byDomain.keys()]),
        eq(organizationDomains.verificationStatus, 'verified'),
        ne(organizationDomains.enrollmentMode, 'manual_invitation'),
      ),
    );
  if (domains.length === 0) return;
  const settings = instanceSettings((await getInstance(deps, instanceId)).settings);
  const d = { db: deps.db, clock: deps.clock };
  for (const { domain, org } of domains) {
    const [member] = await deps.db
      .select({ id: organizationMemberships.id })
      .from(organizationMemberships)
      .where(and(eq(organizationMemberships.organizationId, org.id), eq(organizationMemberships.userId, userId)));
    if (member) continue;
    if (domain.enrollmentMode === 'automatic_invitation') {
      await createEnrollmentInvitation(d, instanceId, org, byDomain.get(domain.name)!, settings.organization_default_role);
    } else {
      const now = deps.clock.now();
      await deps.db
        .insert(organizationSuggestions)
        .values({ id: newId('orgsug'), instanceId, organizationId: org.id, userId, status: 'pending', createdAt: now, updatedAt: now })
        .onConflictDoNothing();
    }
  }
}
