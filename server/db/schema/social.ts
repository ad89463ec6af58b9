import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { flowBindingColumns, millis, timestamps } from './columns';
import { instanceRef } from './instances';
import { users } from './users';

export const SOCIAL_PROVIDER_KINDS = [
  'google',
  'microsoft',
  'github',
  'apple',
  'facebook',
  'linkedin',
  'discord',
  'gitlab',
  'slack',
  'oidc',
  'mock',
] as const;
export type SocialProviderKind = (typeof SOCIAL_PROVIDER_KINDS)[number];
/**
 * `mock`: Latchkey's own stand-in provider on test instances (server/social/mock.ts): its authorize page asks for a
 * name and an address and answers like a provider, so a social sign-in can be tried without credentials.
 */
/** Plain OAuth 2.0 presets: who signed in is read from the provider's API (`api_base_url`), not from an ID token. */
export const OAUTH2_KINDS: readonly SocialProviderKind[] = ['github', 'facebook', 'discord'];

/**
 * A social sign-in provider of an instance (`socp_`): a Google, Microsoft or GitHub preset
 * or any OIDC issuer. `name` is the slug of its FAPI strategy (`oauth_<name>`). The client
 * secret is kept only encrypted (ENCRYPTION_KEY) and never returned.
 */
export const socialProviders = pgTable(
  'social_providers',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    name: text('name').notNull(),
    kind: text('kind', { enum: SOCIAL_PROVIDER_KINDS }).notNull(),
    displayName: text('display_name').notNull(),
    clientId: text('client_id').notNull(),
    clientSecretEncrypted: text('client_secret_encrypted').notNull(),
    /** OIDC issuer (discovery); a preset's default when null. */
    issuer: text('issuer'),
    /** Endpoint overrides (GitHub, or an OIDC preset pointed elsewhere): authorization_endpoint, token_endpoint, api_base_url. */
    endpoints: jsonb('endpoints').$type<Record<string, string>>().notNull().default({}),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    ...timestamps(),
  },
  (t) => [uniqueIndex('social_providers_name_uq').on(t.instanceId, t.name)],
);

/** A user's account at a social provider (`eac_`): found again by (provider, provider user id). */
export const externalAccounts = pgTable(
  'external_accounts',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The provider's name (the strategy slug). */
    provider: text('provider').notNull(),
    providerUserId: text('provider_user_id').notNull(),
    email: text('email'),
    emailVerified: boolean('email_verified').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('external_accounts_uq').on(t.instanceId, t.provider, t.providerUserId),
    index('external_accounts_user_idx').on(t.userId),
  ],
);

/**
 * A social sign-in in flight (`socf_`): bound to the client that started it, with the
 * digest of its `state`, its nonce and PKCE verifier (encrypted), and where to return.
 * Single use; lives 10 minutes.
 */
export const socialFlows = pgTable(
  'social_flows',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    clientId: text('client_id').notNull(),
    providerId: text('provider_id').notNull(),
    /** The sign-in attempt id announced when the flow started; the callback creates that attempt. */
    signInId: text('sign_in_id').notNull(),
    purpose: text('purpose', { enum: ['sign_in', 'sign_up'] }).notNull(),
    stateDigest: text('state_digest').notNull(),
    nonce: text('nonce').notNull(),
    codeVerifierEncrypted: text('code_verifier_encrypted').notNull(),
    redirectUrl: text('redirect_url').notNull(),
    /** Where the browser goes when the callback signed in completely (Clerk's `action_complete_redirect_url`); null: `redirect_url`. */
    completeRedirectUrl: text('complete_redirect_url'),
    /**
     * A provider account without a user here: `create` signs a user up at once; `transfer`
     * (Clerk's flow) leaves the sign-in `transferable`, the identity kept (encrypted) until the
     * same client's sign-up with `transfer: true` creates the user.
     */
    newUser: text('new_user', { enum: ['create', 'transfer'] })
      .notNull()
      .default('create'),
    ...flowBindingColumns(),
    expiresAt: millis('expires_at').notNull(),
    usedAt: millis('used_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [uniqueIndex('social_flows_state_uq').on(t.stateDigest)],
);
