import type { SmsDataOf, SmsTemplateName } from '../../emails';
import type { Deps } from '../deps';
import { smsMessages } from '../db/schema';
import { emitEvent } from '../events/events';
import { validationError } from '../http/errors';
import { newId } from '../db/ids';
import { phoneNumber } from '../email/addresses';
import { smsView, type SmsRow, type SmsView } from '../email/messages';
import { hasCredentials, loadSmsSettings } from './settings';
import { builtInSmsFor, resolveSmsTemplate } from '../localization/resolve';
import { renderSms, TemplateInvalidError } from '../localization/render';
import { storedData, instanceInfo, candidatesFor, withBranding } from '../email/mailer';

export interface SendSmsInput<N extends SmsTemplateName = SmsTemplateName> {
  instanceId: string;
  /** E.164. */
  to: string;
  template: N;
  data: SmsDataOf<N>;
  /** As for emails: the recipient's locale (else the user's), then Accept-Language, instance default, English. */
  locale?: string | null;
  acceptLanguage?: string | null;
  userId?: string | null;
}

/**
 * Renders a built-in SMS, records it and emits sms.created in one transaction. Without an
 * SMS provider (server/sms/settings.ts) it is delivered to the dev outbox at once; with one
 * it is written `queued`: hand it over after the commit (deliverSmsAfterCommit), or the
 * retry sweep sends it within seconds.
 */
export async function sendSms<N extends SmsTemplateName>(
  deps: Pick<Deps, 'db' | 'clock' | 'logger' | 'config'>,
  input: SendSmsInput<N>,
): Promise<SmsView> {
  const to = phoneNumber.safeParse(input.to);
  if (!to.success) throw validationError('to', 'invalid', 'The recipient must be an E.164 phone number such as +14155550100.');
  const instance = await instanceInfo(deps, input.instanceId);
  const data = withBranding(input.data, instance);
  const candidates = await candidatesFor(deps, input, instance.defaultLocale);
  const resolved = await resolveSmsTemplate(deps, input.instanceId, input.template, candidates);
  let template = resolved.template;
  let body: string;
  try {
    ({ body } = await renderSms(template, data));
  } catch (err) {
    if (resolved.source !== 'override' || !(err instanceof TemplateInvalidError)) throw err;
    template = builtInSmsFor(input.template, candidates);
    ({ body } = await renderSms(template, data));
  }
  const now = deps.clock.now();
  const provider = await loadSmsSettings(deps, input.instanceId);
  const viaProvider = hasCredentials(provider);
  const row: SmsRow = {
    id: newId('sms'),
    instanceId: input.instanceId,
    userId: input.userId ?? null,
    to: to.data,
    from: viaProvider && !provider!.messagingServiceId ? provider!.fromNumber : null,
    template: template.name,
    locale: template.locale,
    body,
    data: storedData(template.variables, data, template.name),
    status: viaProvider ? 'queued' : 'delivered',
    deliveredBy: viaProvider ? provider!.provider : 'outbox',
    error: null,
    errorCode: null,
    providerMessageId: null,
    attempts: viaProvider ? 0 : 1,
    nextAttemptAt: viaProvider ? now : null,
    createdAt: now,
    updatedAt: now,
  };
  const view = smsView(row);
  await deps.db.transaction(async (tx) => {
    await tx.insert(smsMessages).values(row);
    // Delivered by a provider, the code has no reason to travel to webhook endpoints (and sit in their logs).
    await emitEvent({ db: tx, clock: deps.clock }, input.instanceId, 'sms.created', viaProvider ? smsView(row, { redact: true }) : view);
  });
  return view;
}
