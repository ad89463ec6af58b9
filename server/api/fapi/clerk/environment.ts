import type { z } from 'zod';
import type { environmentSchema } from '../../../auth/environment';
import type { InstanceContext } from '../../../instances/instances';

type Environment = z.output<typeof environmentSchema>;

/**
 * Latchkey's environment (`GET /v1/environment`) in Clerk's shape: what clerk-js and Clerk's
 * prebuilt components read to decide which fields, factors and buttons to show. Everything
 * comes from the instance's settings and branding; what Latchkey does not have (web3,
 * captcha, billing, waitlist sign-up) is off.
 */
export function clerkEnvironment(env: Environment, instance: InstanceContext) {
  const s = instance.settings;
  const us = env.user_settings;
  const required = new Set(us.sign_up.required_fields);
  const optional = new Set(us.sign_up.optional_fields);
  const firstFactors = new Set(us.first_factors);
  const identifiers = new Set(us.identifiers);
  const emailFirst = ['email_code', 'email_link'].filter((f) => firstFactors.has(f));
  const attribute = (enabled: boolean, extra: Record<string, unknown> = {}) => ({
    enabled,
    required: false,
    used_for_first_factor: false,
    first_factors: [] as string[],
    used_for_second_factor: false,
    second_factors: [] as string[],
    verifications: [] as string[],
    verify_at_sign_up: false,
    ...extra,
  });
  const social = Object.fromEntries(
    us.social.map((p) => [
      p.strategy,
      {
        enabled: true,
        required: false,
        authenticatable: true,
        block_email_subaddresses: false,
        strategy: p.strategy,
        name: p.display_name,
        logo_url: null,
      },
    ]),
  );
  const production = instance.environment === 'live';
  const fapiHost = new URL(instance.fapiUrl).host;
  // The hosted pages, where Clerk names its Account Portal. On development instances clerk-js
  // decorates a link to another origin with its dev browser, which it only keeps for Clerk's own
  // hosts (a link would throw "Missing dev browser"): there the app's own pages are the default.
  const hosted = (page: string) => (production ? `${env.instance.fapi_url}/${page}` : '');
  return {
    object: 'environment' as const,
    id: instance.id,
    auth_config: {
      object: 'auth_config',
      id: `aac_${instance.id}`,
      single_session_mode: false,
      claimed_at: null,
      reverification: false,
      preferred_channels: null,
    },
    display_config: {
      object: 'display_config',
      id: `display_config_${instance.id}`,
      instance_environment_type: production ? 'production' : 'development',
      application_name: env.branding.application_name,
      theme: { buttons: {}, general: { color: env.branding.primary_color ?? '#6C47FF' }, accounts: {} },
      preferred_sign_in_strategy: firstFactors.has('password') ? 'password' : 'otp',
      logo_image_url: env.branding.logo_url ?? '',
      favicon_image_url: '',
      home_url: '',
      sign_in_url: hosted('sign-in'),
      sign_up_url: hosted('sign-up'),
      user_profile_url: hosted('profile'),
      waitlist_url: hosted('waitlist'),
      after_sign_in_url: '',
      after_sign_up_url: '',
      after_sign_out_one_url: '',
      after_sign_out_all_url: '',
      after_switch_session_url: '',
      after_join_waitlist_url: '',
      organization_profile_url: '',
      create_organization_url: '',
      after_leave_organization_url: '',
      after_create_organization_url: '',
      support_email: env.branding.support_email ?? '',
      branded: false,
      clerk_js_version: null,
      show_devmode_warning: false,
      captcha_public_key: null,
      captcha_widget_type: null,
      captcha_public_key_invisible: null,
      captcha_provider: null,
      captcha_oauth_bypass: [],
      captcha_heartbeat: false,
      google_one_tap_client_id: null,
      privacy_policy_url: '',
      terms_url: '',
      backend_host: fapiHost,
    },
    user_settings: {
      attributes: {
        email_address: attribute(true, {
          required: required.has('email_address'),
          used_for_first_factor: identifiers.has('email_address'),
          first_factors: emailFirst,
          // Sign-ups and added addresses are verified by a code, or by an emailed link when the instance sends links.
          verifications: ['email_code', ...(firstFactors.has('email_link') ? ['email_link'] : [])],
          verify_at_sign_up: true,
        }),
        phone_number: attribute(identifiers.has('phone_number'), {
          used_for_first_factor: identifiers.has('phone_number'),
          first_factors: firstFactors.has('phone_code') ? ['phone_code'] : [],
          verifications: ['phone_code'],
        }),
        username: attribute(identifiers.has('username') || required.has('username') || optional.has('username'), {
          required: required.has('username'),
          used_for_first_factor: identifiers.has('username'),
        }),
        web3_wallet: attribute(false),
        first_name: attribute(required.has('first_name') || optional.has('first_name'), { required: required.has('first_name') }),
        last_name: attribute(required.has('last_name') || optional.has('last_name'), { required: required.has('last_name') }),
        password: attribute(true, { required: required.has('password') }),
        authenticator_app: attribute(us.second_factors.includes('totp'), { used_for_second_factor: true, second_factors: ['totp'] }),
        backup_code: attribute(us.second_factors.includes('backup_code'), {
          used_for_second_factor: true,
          second_factors: ['backup_code'],
        }),
        passkey: attribute(firstFactors.has('passkey'), {
          used_for_first_factor: true,
          first_factors: ['passkey'],
          verifications: ['passkey'],
        }),
      },
      actions: { delete_self: us.actions.delete_self, create_organization: us.actions.create_organization },
      social,
      enterprise_sso: { enabled: false },
      sign_in: { second_factor: { required: us.mfa_required } },
      sign_up: {
        captcha_enabled: false,
        captcha_widget_type: null,
        custom_action_required: false,
        progressive: true,
        mode: us.sign_up.mode,
        legal_consent_enabled: false,
      },
      password_settings: {
        disable_hibp: !s.attack_protection.breached_passwords.enabled,
        min_length: us.password_settings.min_length,
        max_length: 256,
        require_special_char: us.password_settings.require_symbol,
        require_numbers: us.password_settings.require_digit,
        require_uppercase: us.password_settings.require_uppercase,
        require_lowercase: us.password_settings.require_lowercase,
        show_zxcvbn: false,
        min_zxcvbn_strength: 0,
        enforce_hibp_on_sign_in: false,
        allowed_special_characters: '',
      },
      username_settings: { min_length: 1, max_length: 64 },
      passkey_settings: { allow_autofill: firstFactors.has('passkey'), show_sign_in_button: firstFactors.has('passkey') },
      // Latchkey never says whether an account exists (README, "No existence oracle").
      attack_protection: { enumeration_protection: { enabled: true }, user_lockout: { enabled: s.attack_protection.user_lockout.enabled } },
    },
    organization_settings: {
      enabled: s.organizations_enabled,
      max_allowed_memberships: 0,
      force_organization_selection: false,
      actions: { admin_delete: true },
      domains: {
        enabled: true,
        enrollment_modes: ['manual_invitation', 'automatic_invitation', 'automatic_suggestion'],
        default_role: 'org:member',
      },
      slug: { disabled: false },
      organization_creation_defaults: { enabled: false },
    },
    commerce_settings: {
      billing: { user: { enabled: false, has_paid_plans: false }, organization: { enabled: false, has_paid_plans: false } },
    },
    api_keys_settings: { user_api_keys_enabled: false, orgs_api_keys_enabled: false },
    maintenance_mode: false,
    client_debug_mode: false,
    partitioned_cookies: false,
  };
}
