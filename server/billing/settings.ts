import { eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { billingSettings } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, validationError } from '../http/errors';
import { outboundNetwork } from '../http/outbound';
import { checkTargetUrl, TargetRefused } from '../infra/ssrf';
import type { InstanceContext } from '../instances/instances';
import { targetPolicy } from '../http/outbound';
import type { BillingProcessor, ProcessorConnection } from './processor';
import { PROCESSORS } from './stripe';

type SettingsRow = typeof billingSettings.$inferSelect;

const webhookUrlOf = (publicUrl: string, processor: string, instanceId: string) =>
  `${publicUrl.replace(/\/+$/, '')}/v1/billing/webhooks/${processor}/${instanceId}`;

const settingsView = (publicUrl: string, instanceId: string, r: SettingsRow | undefined) => ({
  object: 'billing_settings' as const,
  processor: r?.processor ?? ('stripe' as const),
  secret_key_set: Boolean(r?.secretKeyEncrypted),
  webhook_signing_secret_set: Boolean(r?.webhookSecretEncrypted),
  api_base_url: r?.apiBaseUrl ?? null,
  webhook_url: webhookUrlOf(publicUrl, r?.processor ?? 'stripe', instanceId),
  updated_at: r?.updatedAt ?? null,
});

async function loadSettings(deps: Pick<Deps, 'db'>, instanceId: string) {
  const [row] = await deps.db.select().from(billingSettings).where(eq(billingSettings.instanceId, instanceId));
  return row;
}

export async function getBillingSettings(deps: Pick<Deps, 'db' | 'config'>, instanceId: string) {
  return settingsView(deps.config.PUBLIC_URL, instanceId, await loadSettings(deps, instanceId));
}

export interface BillingSettingsInput {
  processor?: 'stripe';
  secret_key?: string | null;
  webhook_signing_secret?: string | null;
  api_base_url?: string | null;
}

/** Sets the processor settings; secrets are encrypted here and never leave again (not even in the audit log). */
export async function updateBillingSettings(
  deps: Pick<Deps, 'db' | 'clock' | 'cipher' | 'config'>,
  instance: Pick<InstanceContext, 'id' | 'environment'>,
  input: BillingSettingsInput,
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
      ...(input.processor !== undefined && { processor: input.processor }),
      ...(input.secret_key !== undefined && { secretKeyEncrypted: enc(input.secret_key) }),
      ...(input.webhook_signing_secret !== undefined && { webhookSecretEncrypted: enc(input.webhook_signing_secret) }),
      ...(input.api_base_url !== undefined && { apiBaseUrl: input.api_base_url ? input.api_base_url.replace(/\/+$/, '') : null }),
      updatedAt: now,
    };
    const [row] = await tx
      .insert(billingSettings)
      .values({ instanceId: instance.id, processor: 'stripe', ...patch })
      .onConflictDoUpdate({ target: billingSettings.instanceId, set: patch })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...ctx,
        action: 'billing_settings.updated',
        target: instance.id,
        details: { fields: Object.keys(input).sort() },
      },
    );
    return settingsView(deps.config.PUBLIC_URL, instance.id, row);
  });
}

export interface ProcessorSetup {
  processor: BillingProcessor;
  connection: ProcessorConnection | null;
  webhookSecret: string | null;
}

/** The instance's processor with its decrypted credentials, for one request. */
export async function processorSetup(
  deps: Pick<Deps, 'db' | 'cipher' | 'config' | 'dns' | 'testTrustedCas'>,
  instance: Pick<InstanceContext, 'id' | 'environment'>,
): Promise<ProcessorSetup | null> {
  const row = await loadSettings(deps, instance.id);
  if (!row) return null;
  const processor = PROCESSORS[row.processor];
  if (!processor) return null;
  return {
    processor,
    connection: row.secretKeyEncrypted
      ? {
          secretKey: deps.cipher.decrypt(row.secretKeyEncrypted),
          apiBaseUrl: row.apiBaseUrl,
          policy: targetPolicy(deps.config, instance.environment),
          ...outboundNetwork(deps),
        }
      : null,
    webhookSecret: row.webhookSecretEncrypted ? deps.cipher.decrypt(row.webhookSecretEncrypted) : null,
  };
}

/** The connection to the processor's API, or 409 not_configured. */
export async function requireConnection(
  deps: Pick<Deps, 'db' | 'cipher' | 'config' | 'dns' | 'testTrustedCas'>,
  instance: Pick<InstanceContext, 'id' | 'environment'>,
) {
  const setup = await processorSetup(deps, instance);
  if (!setup?.connection) {
    throw new AppError('CONFLICT', {
      message: 'Billing is not configured for this instance: set its processor secret key first.',
      meta: { reason: 'not_configured' },
    });
  }
  return { processor: setup.processor, connection: setup.connection };
}
