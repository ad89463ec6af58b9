import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { emailAddresses, organizationDomains } from '../db/schema';
import { emailDomain } from '../organizations/domains';
import type { Directory } from './directory';

/**
 * How far a directory reaches into the instance's users. It OWNS a user it created, and a
 * user holding, verified, an address at one of its organization's verified domains (whoever
 * controls the domain controls that mailbox, hence the account already). Only an owned user
 * is linked, renamed, or has every session ended when the directory deactivates it; for any
 * other user the directory can only touch its own organization's membership.
 */

/** Whether the address is at a domain the directory's organization verified. */
export async function atOwnVerifiedDomain(db: Db, dir: Directory, address: string) {
  const [row] = await db
    .select({ id: organizationDomains.id })
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.organizationId, dir.organizationId),
        eq(organizationDomains.name, emailDomain(address)),
        eq(organizationDomains.verificationStatus, 'verified'),
      ),
    );
  return row !== undefined;
}

/**
 * Whether another organization of the instance verified the address's domain: that
 * organization answers for addresses there, so this directory may not create one.
 */
export async function verifiedByAnotherOrganization(db: Db, dir: Directory, address: string) {
  const [row] = await db
    .select({ id: organizationDomains.id })
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.instanceId, dir.instanceId),
        eq(organizationDomains.name, emailDomain(address)),
        eq(organizationDomains.verificationStatus, 'verified'),
        ne(organizationDomains.organizationId, dir.organizationId),
      ),
    );
  return row !== undefined;
}

/** Checked at the moment of use: a domain unverified or removed since the link no longer gives ownership. */
export async function ownsUser(db: Db, dir: Directory, row: { userId: string; createdUser: boolean }) {
  if (row.createdUser) return true;
  const verified = await db
    .select({ address: emailAddresses.emailKey })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.userId, row.userId), eq(emailAddresses.verificationStatus, 'verified')));
  if (verified.length === 0) return false;
  const [domain] = await db
    .select({ id: organizationDomains.id })
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.organizationId, dir.organizationId),
        eq(organizationDomains.verificationStatus, 'verified'),
        inArray(organizationDomains.name, [...new Set(verified.map((v) => emailDomain(v.address)))]),
      ),
    );
  return domain !== undefined;
}
