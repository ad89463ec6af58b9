import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { passwordPolicySchema } from '../instances/password-rules';
import { brandingView } from '../instances/branding';
import { brandingSchema } from '../instances/branding';
import { firstFactorsOf, identifiersOf } from './sign-ins';
import { LOCALES } from '../../i18n/locales';
import { socialProviders, users } from '../db/schema';
import type { Deps } from '../deps';
import { getInstance, type InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { signUpFields, signUpIdentifiers } from './sign-ups';
import { hostedLocale } from '../localization/hosted-locale';
import { resolveHostedCopy } from '../localization/resolve';
import { clientView, type ClientRow } from '../sessions/clients';
import { secondFactorsOfInstance } from './sign-ins';
import { strategyOf } from './social-transfer';

export const environmentSchema = z
  .object({
    object: z.literal('environment'),
    instance: z.object({
      id: z.string(),
      name: z.string(),
      environment: z.enum(['test', 'live']),
      publishable_key: z.string(),
      fapi_url: z.string(),
      /** The platform instance signs operators in to the console. */
      is_console: z.boolean(),
    }),
    user_settings: z.object({
      sign_up: z.object({
        mode: z.enum(['public', 'restricted', 'waitlist']),
        /** Whether a sign-up form is worth showing: public, or restricted with an allowlist. */
        open: z.boolean(),
        required_fields: z.array(z.string()),
        optional_fields: z.array(z.string()),
        /**
         * What a sign-up may name as its identifier: `email_address` always; `phone_number`
         * too when phone codes are on and anyone may sign up (then the code goes by SMS and
         * `phone_number` replaces `email_address` among the required fields).
         */
        identifiers: z.array(z.enum(['email_address', 'phone_number'])),
      }),
      identifiers: z.array(z.string()),
      first_factors: z.array(z.string()),
      second_factors: z.array(z.string()),
      mfa_required: z.boolean(),
      /** Enabled social providers: a button each on the hosted sign-in and sign-up pages. */
      social: z.array(z.object({ strategy: z.string(), name: z.string(), display_name: z.string(), kind: z.string() })),
      /**
       * What users may do to their own account (`delete_self`: `DELETE /v1/me`) and whether they
       * may create organizations (`create_organization`: `POST /v1/organizations`).
       */
      actions: z.object({ delete_self: z.boolean(), create_organization: z.boolean() }),
      /** Whether organizations are on for end users (the `/v1/me/organization_…` and `/v1/organizations/…` routes answer). */
      organizations: z.object({ enabled: z.boolean() }),
      /** The password policy, for the hints of password fields. */
      password_settings: passwordPolicySchema,
    }),
    /** The application name, logo, primary colour and support address the hosted pages show. */
    branding: brandingSchema,
    redirect: z.object({ url: z.string(), allowed: z.boolean() }).nullable(),
    localization: z.object({
      locale: z.enum(LOCALES),
      /** Dotted message key → the operator's text, merged over the built-in catalog. */
      overrides: z.record(z.string(), z.string()),
    }),
  })
  .meta({ id: 'Environment' });

/** The locale of the user of the client's active session, if any. */
async function signedInUserLocale(
  deps: Pick<Deps, 'db' | 'clock'>,
  instance: InstanceContext,
  client: ClientRow | null,
): Promise<string | null> {
  if (!client) return null;
  const { session } = await clientView(deps, instance, client);
  if (!session || session.status !== 'active') return null;
  const [u] = await deps.db.select({ locale: users.locale }).from(users).where(eq(users.id, session.user_id));
  return u?.locale ?? null;
}

/** The instance's enabled social providers, as buttons show them. */
async function enabledSocialProviders(deps: Pick<Deps, 'db'>, instanceId: string) {
  const rows = await deps.db
    .select({ name: socialProviders.name, displayName: socialProviders.displayName, kind: socialProviders.kind })
    .from(socialProviders)
    .where(and(eq(socialProviders.instanceId, instanceId), eq(socialProviders.enabled, true)))
    .orderBy(asc(socialProviders.id));
  return rows.map((r) => ({ strategy: strategyOf(r.name), name: r.name, display_name: r.displayName, kind: r.kind }));
}

export interface EnvironmentOptions {
  redirectUrl?: string;
  /** The page's explicit `locale` parameter. */
  locale?: string;
  acceptLanguage?: string | null;
  /** The client of the request, for its signed-in user's locale. */
  client?: ClientRow | null;
}

export async function environmentView(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, opts: EnvironmentOptions = {}) {
  const { redirectUrl } = opts;
  const row = await getInstance(deps, instance.id);
  const s = instance.settings;
  const { locale, tag } = hostedLocale({
    explicit: opts.locale,
    userLocale: await signedInUserLocale(deps, instance, opts.client ?? null),
    acceptLanguage: opts.acceptLanguage,
    instanceDefault: s.default_locale,
  });
  const fields = signUpFields(instance);
  return {
    object: 'environment' as const,
    instance: {
      id: instance.id,
      name: row.name,
      environment: instance.environment,
      publishable_key: instance.publishableKey,
      fapi_url: instance.fapiUrl,
      is_console: instance.kind === 'platform',
    },
    user_settings: {
      sign_up: {
        mode: s.sign_up_mode,
        open: s.sign_up_mode === 'public' || (s.sign_up_mode === 'restricted' && s.allowlist.length > 0),
        required_fields: fields.required,
        optional_fields: fields.optional,
        identifiers: signUpIdentifiers(s),
      },
      identifiers: identifiersOf(s.sign_in_methods),
      first_factors: firstFactorsOf(s.sign_in_methods),
      second_factors: secondFactorsOfInstance(s.sign_in_methods),
      mfa_required: s.mfa_required,
      social: await enabledSocialProviders(deps, instance.id),
      actions: { delete_self: s.delete_self_enabled, create_organization: s.organizations_enabled && s.organization_creation_enabled },
      organizations: { enabled: s.organizations_enabled },
      password_settings: s.password_policy,
    },
    branding: await brandingView(deps, instance, row.name),
    redirect: redirectUrl === undefined ? null : { url: redirectUrl, allowed: isAllowedRedirect(s, instance.fapiUrl, redirectUrl) },
    localization: { locale, overrides: await resolveHostedCopy(deps.db, instance.id, tag) },
  };
}
