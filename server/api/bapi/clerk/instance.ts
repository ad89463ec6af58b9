import { z } from 'zod';
import { auditContextOf } from '../../../http/actor';
import { endpoint, noContent } from '../../../http/endpoint';
import {
  clerkInstancePatch,
  clerkOrganizationSettingsPatch,
  clerkRestrictionsPatch,
  getClerkInstance,
  getClerkOrganizationSettings,
  updateClerkInstance,
  updateClerkOrganizationSettings,
  updateClerkRestrictions,
  type ClerkInstancePatch,
  type ClerkOrganizationSettingsPatch,
  type ClerkRestrictionsPatch,
} from './instance-settings';
import type { BapiAuth } from '../authenticate';

/** Clerk's instance calls (`@clerk/backend`'s `instance.*`), on Latchkey's settings (./instance-settings.ts). */
const SETTINGS_AUDIT = { action: 'instance.settings_updated', recordedBy: 'domain' } as const;

export const clerkInstance = {
  get: endpoint<BapiAuth>({
    summary:
      'The instance in Clerk’s shape: id, environment_type (development, production), allowed_origins; also hibp, support_email and test_mode as PATCH takes them',
    response: z
      .object({ object: z.literal('instance'), id: z.string(), environment_type: z.string(), allowed_origins: z.array(z.string()) })
      .loose(),
    handle: ({ deps, auth }) => getClerkInstance(deps, auth.instance.id),
  }),
  update: endpoint<BapiAuth, ClerkInstancePatch>({
    summary:
      'Change the instance as Clerk’s `instance.update` does (204): allowed_origins, hibp (the breached-password check), support_email (the branding’s support address); test_mode and enhanced_email_deliverability only false (422 unsupported otherwise)',
    body: clerkInstancePatch,
    response: z.unknown(),
    status: 204,
    audit: SETTINGS_AUDIT,
    handle: async ({ deps, auth, body, actor }) => {
      await updateClerkInstance(deps, auth.instance.id, body, auditContextOf(actor));
      return noContent();
    },
  }),
  updateRestrictions: endpoint<BapiAuth, ClerkRestrictionsPatch>({
    summary:
      'Clerk’s `instance.updateRestrictions`: allowlist turns restricted sign-up on or off; blocklist, subaddress, disposable-domain and Gmail-dot blocking only false (422 unsupported otherwise)',
    body: clerkRestrictionsPatch,
    response: z.object({ object: z.literal('instance_restrictions') }).loose(),
    audit: SETTINGS_AUDIT,
    handle: ({ deps, auth, body, actor }) => updateClerkRestrictions(deps, auth.instance.id, body, auditContextOf(actor)),
  }),
  getOrganizationSettings: endpoint<BapiAuth>({
    summary: 'The instance’s organization settings in Clerk’s shape',
    response: z.object({ object: z.literal('organization_settings') }).loose(),
    handle: ({ deps, auth }) => getClerkOrganizationSettings(deps, auth.instance.id),
  }),
  updateOrganizationSettings: endpoint<BapiAuth, ClerkOrganizationSettingsPatch>({
    summary:
      'Clerk’s `instance.updateOrganizationSettings`: enabled, max_allowed_memberships, creator_role_id and domains_default_role_id (a role’s id or key; 422 unknown_role); admin_delete_enabled and domains_enabled only true, domains_enrollment_modes only all three (422 unsupported otherwise)',
    body: clerkOrganizationSettingsPatch,
    response: z.object({ object: z.literal('organization_settings') }).loose(),
    audit: SETTINGS_AUDIT,
    handle: ({ deps, auth, body, actor }) => updateClerkOrganizationSettings(deps, auth.instance.id, body, auditContextOf(actor)),
  }),
};
