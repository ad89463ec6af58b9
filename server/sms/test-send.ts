import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { sendSms } from './send';
import type { SmsView } from '../email/messages';
import type { AuditContext } from '../http/actor';
import type { InstanceContext } from '../instances/instances';
import { deliverSms } from './delivery';
import { assertCountryAllowed, spendSmsBudgets } from './pumping';
import { requireSmsProvider } from './settings';

/**
 * An operator's test of the provider: texts `to` the `test_message` template and hands it
 * to the provider at once, answering the SMS as it stands (`sent`, or `queued`/`failed` with
 * the provider's error). The pumping protection applies as to any SMS; 409 not_configured
 * without a provider. Audited with the number, never a credential.
 */
export async function sendTestSms(
  deps: Deps,
  instance: Pick<InstanceContext, 'id' | 'environment'>,
  to: string,
  ctx: AuditContext,
): Promise<SmsView> {
  await requireSmsProvider(deps, instance);
  await assertCountryAllowed(deps, instance.id, to, 'to');
  await spendSmsBudgets(deps, instance, to, { actor: ctx.actor, request: { ip: ctx.ip, userAgent: ctx.userAgent } });
  const sms = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const written = await sendSms(d, { instanceId: instance.id, to, template: 'test_message', data: {}, userId: null });
    await audit(d, { instanceId: instance.id, ...ctx, action: 'sms.test_sent', target: written.id, details: { to } });
    return written;
  });
  return (await deliverSms(deps, sms.id)) ?? sms;
}
