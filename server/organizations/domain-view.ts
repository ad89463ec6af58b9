import type { organizationDomains } from '../db/schema';

type DomainRow = typeof organizationDomains.$inferSelect;

/** The TXT record that proves control of a domain: `_latchkey-verification.<domain>`. */
export const txtRecordName = (domain: string) => `_latchkey-verification.${domain}`;

export function domainView(d: DomainRow) {
  return {
    object: 'organization_domain' as const,
    id: d.id,
    organization_id: d.organizationId,
    name: d.name,
    enrollment_mode: d.enrollmentMode,
    verification: {
      status: d.verificationStatus,
      strategy: d.verificationStrategy,
      verified_at: d.verifiedAt,
      /** The last check (a DNS lookup), failed or not; null before the first. */
      last_checked_at: d.lastCheckedAt,
      /** Why the last check failed; null before any and once one succeeds. */
      error: d.verificationError,
    },
    affiliation_email_address: d.affiliationEmailAddress,
    txt_record: { type: 'TXT' as const, name: txtRecordName(d.name), value: d.txtRecordValue },
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}
export type DomainView = ReturnType<typeof domainView>;
