import { eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { smsSettings } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, validationError } from '../http/errors';
import { outboundNetwork, targetPolicy } from '../http/outbound';
import { checkTargetUrl, TargetRefused } from '../infra/ssrf';
import type { InstanceContext } from '../instances/instances';
import type { SmsConnection, SmsProvider } from './provider';
import { REASONS } from './reasons';
import { PROVIDERS } from './twilio';

type SettingsRow = typeof smsSettings.$inferSelect;
type Instance = Pick<InstanceContext, 'id' | 'environment'>;

/**
 * Where the provider reports status changes of the instance's messages. Each send names it
 * with the SMS's own id (`?sms_id=`, under the provider's signature): a report that arrives
 * before the send's outcome is written still finds its SMS.
 */
export const statusCallbackUrlOf = (publicUrl: string, provider: string, instanceId: string, smsId?: string) =>
  `${publicUrl.replace(/\/+$/, '')}/v1/sms_callbacks/${provider}/${instanceId}${smsId ? `?sms_id=${encodeURIComponent(smsId)}` : ''}`;

export const hasCredentials = (r: SettingsRow | undefined): r is SettingsRow =>
  Boolean(r?.accountId && r.authTokenEncrypted && (r.fromNumber || r.messagingServiceId));

const settingsView = (publicUrl: string, instanceId: string, r: SettingsRow | undefined) => ({
  object: 'sms_settings' as const,
  provider: r?.provider ?? ('twilio' as const),
  /** Credentials and a sender are set: SMS go through the provider, not the dev outbox. */
  configured: hasCredentials(r),
  account_id: r?.accountId ?? null,
  auth_token_set: Boolean(r?.authTokenEncrypted),
  from_number: r?.fromNumber ?? null,
  messaging_service_id: r?.messagingServiceId ?? null,
  api_base_url: r?.apiBaseUrl ?? null,
  allowed_country_codes: r?.allowedCountryCodes ?? [],
  status_callback_url: statusCallbackUrlOf(publicUrl, r?.provider ?? 'twilio', instanceId),
  updated_at: r?.updatedAt ?? null,
});

export async function loadSmsSettings(deps: Pick<Deps, 'db'>, instanceId: string) {
  const [row] = await deps.db.select().from(smsSettings).where(eq(smsSettings.instanceId, instanceId));
  return row;
}

export async function getSmsSettings(deps: Pick<Deps, 'db' | 'config'>, instanceId: string) {
  return settingsView(deps.config.PUBLIC_URL, instanceId, await loadSmsSettings(deps, instanceId));
}

export interface SmsSettingsInput {
  provider?: 'twilio';
  account_id?: string | null;
  auth_token?: string | null;
  from_number?: string | null;
  messaging_service_id?: string | null;
  api_base_url?: string | null;
  allowed_country_codes?: string[];
}

/**
 * Sets the provider settings. The auth token is encrypted here and never leaves again (not
 * in the answer, the audit log or a log line); the API base passes the SSRF guard's policy
 * of the instance (https and public addresses on live instances), as billing's does.
 */
export async function updateSmsSettings(
  deps: Pick<Deps, 'db' | 'clock' | 'cipher' | 'config'>,
  instance: Instance,
  input: SmsSettingsInput,
  ctx: AuditContext,
) {
  if (input.api_base_url) {
    try {
      checkTargetUrl(input.api_base_url, targetPolicy(deps.config, instance.environment));
    } catch (err) {
      if (err instanceof TargetRefused) throw validationError('api_base_url', 'invalid_url', err.message);
      throw err;
    }
  }
  const enc = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : deps.cipher.encrypt(v));
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const patch = {
      ...(input.provider !== undefined && { provider: input.provider }),
      ...(input.account_id !== undefined && { accountId: input.account_id }),
      ...(input.auth_token !== undefined && { authTokenEncrypted: enc(input.auth_token) }),
      ...(input.from_number !== undefined && { fromNumber: input.from_number }),
      ...(input.messaging_service_id !== undefined && { messagingServiceId: input.messaging_service_id }),
      ...(input.api_base_url !== undefined && { apiBaseUrl: input.api_base_url ? input.api_base_url.replace(/\/+$/, '') : null }),
      ...(input.allowed_country_codes !== undefined && { allowedCountryCodes: [...new Set(input.allowed_country_codes)].sort() }),
      updatedAt: now,
    };
    const [row] = await tx
      .insert(smsSettings)
      .values({ instanceId: instance.id, provider: 'twilio', ...patch })
      .onConflictDoUpdate({ target: smsSettings.instanceId, set: patch })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...ctx,
        action: 'sms_settings.updated',
        target: instance.id,
        details: { fields: Object.keys(input).sort() },
      },
    );
    return settingsView(deps.config.PUBLIC_URL, instance.id, row);
  });
}

export interface ProviderSetup {
  provider: SmsProvider;
  connection: SmsConnection;
  /** The StatusCallback of one SMS. */
  statusCallbackUrl(smsId: string): string;
}

type SetupDeps = Pick<Deps, 'db' | 'cipher' | 'config' | 'dns' | 'testTrustedCas'>;

/** The instance's provider with its decrypted credentials, or null: no provider, SMS stay in the dev outbox. */
export async function smsProviderSetup(deps: SetupDeps, instance: Instance, row?: SettingsRow): Promise<ProviderSetup | null> {
  const r = row ?? (await loadSmsSettings(deps, instance.id));
  if (!hasCredentials(r)) return null;
  const provider = PROVIDERS[r.provider];
  if (!provider) return null;
  return {
    provider,
    connection: {
      accountId: r.accountId!,
      authToken: deps.cipher.decrypt(r.authTokenEncrypted!),
      from: r.fromNumber,
      messagingServiceId: r.messagingServiceId,
      apiBaseUrl: r.apiBaseUrl,
      timeoutMs: deps.config.SMS_PROVIDER_TIMEOUT * 1000,
      policy: targetPolicy(deps.config, instance.environment),
      ...outboundNetwork(deps),
    },
    statusCallbackUrl: (smsId) => statusCallbackUrlOf(deps.config.PUBLIC_URL, r.provider, instance.id, smsId),
  };
}

/** The provider, or 409 not_configured (a test send needs one). */
export async function requireSmsProvider(deps: SetupDeps, instance: Instance) {
  const setup = await smsProviderSetup(deps, instance);
  if (!setup) {
    throw new AppError('CONFLICT', {
      message: 'No SMS provider is configured for this instance: set its account id, auth token and a sender first.',
      meta: { reason: REASONS.not_configured },
    });
  }
  return setup;
}
