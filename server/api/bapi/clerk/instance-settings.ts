import { z } from 'zod';
import type { Deps } from '../../../deps';
import { ENROLLMENT_MODES } from '../../../db/schema';
import type { AuditContext } from '../../../http/actor';
import { roleKeyByIdOrKey } from '../../../organizations/roles';
import { brandingSettingsSchema } from '../../../instances/branding-settings';
import { instanceContext, updateInstanceSettings, type InstanceContext } from '../../../instances/instances';
import { settingsPatchSchema, type InstanceSettings } from '../../../instances/settings';

/**
 * Clerk's instance settings (`@clerk/backend`'s `instance.*`: `/v1/instance`, its
 * `restrictions` and `organization_settings`) mapped onto Latchkey's instance settings. A
 * change goes through updateInstanceSettings: validated as every settings change, audited as
 * `instance.settings_updated`. A Clerk setting Latchkey has no counterpart for reads as what
 * Latchkey does, and may be set only to that value (422 `unsupported` otherwise): it is never
 * accepted and ignored.
 */

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'config'>;

/** What Latchkey always does where Clerk has a switch. */
const FIXED = {
  test_mode: false,
  enhanced_email_deliverability: false,
  blocklist: false,
  block_email_subaddresses: false,
  block_disposable_email_domains: false,
  ignore_dots_for_gmail_addresses: false,
  admin_delete_enabled: true,
  domains_enabled: true,
} as const;
type Fixed = keyof typeof FIXED;

const WHY: Record<Fixed, string> = {
  test_mode: 'Latchkey has no test mode (test email addresses and phone numbers with fixed codes)',
  enhanced_email_deliverability: 'Latchkey sends email through the instance’s own mail settings',
  blocklist: 'Latchkey has no blocklist of identifiers',
  block_email_subaddresses: 'Latchkey does not block email subaddresses',
  block_disposable_email_domains: 'Latchkey does not block disposable email domains',
  ignore_dots_for_gmail_addresses: 'Latchkey compares email addresses as written',
  admin_delete_enabled: 'organization deletion is the org:sys_profile:delete permission of a role',
  domains_enabled: 'verified domains are always available to organizations',
};

/** A Clerk switch Latchkey has fixed: absent, null or its fixed value. */
const fixed = (k: Fixed) =>
  z
    .boolean()
    .nullable()
    .optional()
    .refine((v) => v === undefined || v === null || v === FIXED[k], {
      message: `must be ${FIXED[k]}: ${WHY[k]}.`,
      params: { reason: 'unsupported' },
    })
    .meta({ description: `Only ${FIXED[k]} (422 unsupported otherwise): ${WHY[k]}.` });

const roleRef = z.string().min(1).max(64).nullable().optional();

export const clerkInstancePatch = z.strictObject({
  allowed_origins: settingsPatchSchema.shape.allowed_origins.meta({
    description: 'Browser origins such as https://app.example.com, replacing the list (422 invalid_origin otherwise)',
  }),
  hibp: z.boolean().nullable().optional(),
  support_email: brandingSettingsSchema.shape.support_email.optional(),
  test_mode: fixed('test_mode'),
  enhanced_email_deliverability: fixed('enhanced_email_deliverability'),
});
export type ClerkInstancePatch = z.output<typeof clerkInstancePatch>;

export const clerkRestrictionsPatch = z.strictObject({
  allowlist: z.boolean().nullable().optional(),
  blocklist: fixed('blocklist'),
  block_email_subaddresses: fixed('block_email_subaddresses'),
  block_disposable_email_domains: fixed('block_disposable_email_domains'),
  ignore_dots_for_gmail_addresses: fixed('ignore_dots_for_gmail_addresses'),
});
export type ClerkRestrictionsPatch = z.output<typeof clerkRestrictionsPatch>;

export const clerkOrganizationSettingsPatch = z.strictObject({
  enabled: z.boolean().nullable().optional(),
  max_allowed_memberships: z.number().int().min(0).max(100_000).nullable().optional(),
  admin_delete_enabled: fixed('admin_delete_enabled'),
  domains_enabled: fixed('domains_enabled'),
  domains_enrollment_modes: z
    .array(z.enum(ENROLLMENT_MODES))
    .max(ENROLLMENT_MODES.length)
    .optional()
    .refine((v) => v === undefined || ENROLLMENT_MODES.every((m) => v.includes(m)), {
      message: `must list every mode (${ENROLLMENT_MODES.join(', ')}): Latchkey offers them all.`,
      params: { reason: 'unsupported' },
    })
    .meta({ description: 'Every mode: Latchkey offers them all (422 unsupported otherwise).' }),
  creator_role_id: roleRef,
  domains_default_role_id: roleRef,
});
export type ClerkOrganizationSettingsPatch = z.output<typeof clerkOrganizationSettingsPatch>;

const clerkInstanceView = (instance: Pick<InstanceContext, 'id' | 'environment'>, s: InstanceSettings) => ({
  object: 'instance' as const,
  id: instance.id,
  environment_type: instance.environment === 'live' ? 'production' : 'development',
  allowed_origins: s.allowed_origins,
  // Beyond Clerk's resource: what PATCH takes, as stored.
  hibp: s.attack_protection.breached_passwords.enabled,
  support_email: s.branding.support_email,
  test_mode: FIXED.test_mode,
});

const clerkRestrictionsView = (s: InstanceSettings) => ({
  object: 'instance_restrictions' as const,
  allowlist: s.sign_up_mode === 'restricted',
  blocklist: FIXED.blocklist,
  block_email_subaddresses: FIXED.block_email_subaddresses,
  block_disposable_email_domains: FIXED.block_disposable_email_domains,
  ignore_dots_for_gmail_addresses: FIXED.ignore_dots_for_gmail_addresses,
});

const clerkOrganizationSettingsView = (s: InstanceSettings) => ({
  object: 'organization_settings' as const,
  enabled: s.organizations_enabled,
  max_allowed_memberships: s.organization_max_allowed_memberships,
  // Latchkey caps neither: 0, as for memberships, is no cap.
  max_allowed_roles: 0,
  max_allowed_permissions: 0,
  creator_role: s.organization_creator_role,
  admin_delete_enabled: FIXED.admin_delete_enabled,
  domains_enabled: FIXED.domains_enabled,
  slug_disabled: false,
  domains_enrollment_modes: [...ENROLLMENT_MODES],
  domains_default_role: s.organization_default_role,
});

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

export async function getClerkInstance(deps: D, instanceId: string) {
  const instance = await instanceContext(deps, instanceId);
  return clerkInstanceView(instance, instance.settings);
}

export async function getClerkOrganizationSettings(deps: D, instanceId: string) {
  return clerkOrganizationSettingsView((await instanceContext(deps, instanceId)).settings);
}

/** `PATCH /v1/instance`: origins, the breached-password check, the support address; one audited change. */
export async function updateClerkInstance(deps: D, instanceId: string, patch: ClerkInstancePatch, ctx: AuditContext) {
  const { allowed_origins, support_email, hibp } = patch;
  if (!allowed_origins && support_email === undefined && !present(hibp)) return;
  await updateInstanceSettings(
    deps,
    instanceId,
    (current) => ({
      ...(allowed_origins ? { allowed_origins } : {}),
      ...(support_email !== undefined ? { branding: { support_email } } : {}),
      ...(present(hibp)
        ? {
            attack_protection: {
              ...current.attack_protection,
              breached_passwords: { ...current.attack_protection.breached_passwords, enabled: hibp },
            },
          }
        : {}),
    }),
    ctx,
  );
}

/** `PATCH /v1/instance/restrictions`: the allowlist is sign-up mode `restricted` (off: `public`, unless the waitlist is on). */
export async function updateClerkRestrictions(deps: D, instanceId: string, patch: ClerkRestrictionsPatch, ctx: AuditContext) {
  const saved = await updateInstanceSettings(
    deps,
    instanceId,
    (current) => {
      if (!present(patch.allowlist)) return null;
      if (patch.allowlist) return current.sign_up_mode === 'restricted' ? null : { sign_up_mode: 'restricted' };
      return current.sign_up_mode === 'restricted' ? { sign_up_mode: 'public' } : null;
    },
    ctx,
  );
  return clerkRestrictionsView(saved);
}

/** `PATCH /v1/instance/organization_settings`: organizations on the FAPI, the membership cap, the creator's and new members' roles. */
export async function updateClerkOrganizationSettings(
  deps: D,
  instanceId: string,
  patch: ClerkOrganizationSettingsPatch,
  ctx: AuditContext,
) {
  const creator = present(patch.creator_role_id)
    ? await roleKeyByIdOrKey(deps, instanceId, patch.creator_role_id, 'creator_role_id')
    : undefined;
  const member = present(patch.domains_default_role_id)
    ? await roleKeyByIdOrKey(deps, instanceId, patch.domains_default_role_id, 'domains_default_role_id')
    : undefined;
  const change = {
    ...(present(patch.enabled) ? { organizations_enabled: patch.enabled } : {}),
    ...(present(patch.max_allowed_memberships) ? { organization_max_allowed_memberships: patch.max_allowed_memberships } : {}),
    ...(creator ? { organization_creator_role: creator } : {}),
    ...(member ? { organization_default_role: member } : {}),
  };
  const saved = await updateInstanceSettings(deps, instanceId, () => (Object.keys(change).length ? change : null), ctx);
  return clerkOrganizationSettingsView(saved);
}
