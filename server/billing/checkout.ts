import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { billingSubscriptions, emailAddresses, users } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { findPlan } from './plans';
import { requireConnection } from './settings';

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'config' | 'dns' | 'logger'>;

/** The processor refused or could not be reached: 502-free, a 409 the caller can show. */
function processorFailed(deps: D, instanceId: string, err: unknown): never {
  if (err instanceof AppError) throw err;
  deps.logger.warn({ instance_id: instanceId, err: err instanceof Error ? err.message : String(err) }, 'billing processor request failed');
  throw new AppError('CONFLICT', {
    message: 'The payment processor refused the request or could not be reached.',
    meta: { reason: 'processor_error' },
  });
}

/** The processor customer of the subject's latest subscription, if any. */
async function customerOf(deps: Pick<Deps, 'db'>, instanceId: string, subject: string): Promise<string | null> {
  const [row] = await deps.db
    .select({ customer: billingSubscriptions.processorCustomerId })
    .from(billingSubscriptions)
    .where(
      and(
        eq(billingSubscriptions.instanceId, instanceId),
        eq(billingSubscriptions.subject, subject),
        isNotNull(billingSubscriptions.processorCustomerId),
      ),
    )
    .orderBy(desc(billingSubscriptions.id))
    .limit(1);
  return row?.customer ?? null;
}

async function primaryEmail(deps: Pick<Deps, 'db'>, userId: string): Promise<string | null> {
  const [row] = await deps.db
    .select({ email: emailAddresses.emailAddress })
    .from(users)
    .innerJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(eq(users.id, userId));
  return row?.email ?? null;
}

export interface CheckoutInput {
  plan: string;
  interval?: 'month' | 'year';
  success_url: string;
  cancel_url: string;
}

/**
 * Starts a checkout for `subject` (a user, or an organization its admin pays for): the
 * processor creates a session whose subscription carries our subject and plan in its
 * metadata, and we answer its URL. The subscription itself arrives by webhook.
 */
export async function startCheckout(
  deps: D,
  instance: InstanceContext,
  who: { subject: string; payer: 'user' | 'organization'; userId: string },
  input: CheckoutInput,
  ctx: AuditContext,
) {
  const plan = await findPlan(deps.db, instance.id, input.plan);
  if (!plan) throw notFound('plan');
  if (plan.payer !== who.payer) {
    throw new AppError('CONFLICT', {
      message: `This plan is for ${plan.payer === 'user' ? 'users' : 'organizations'}.`,
      meta: { reason: 'wrong_payer' },
    });
  }
  const price = plan.prices.find((p) => !input.interval || p.interval === input.interval);
  if (!price) throw new AppError('CONFLICT', { message: 'This plan has no price for that interval.', meta: { reason: 'no_price' } });
  const { processor, connection } = await requireConnection(deps, instance);
  const customerId = await customerOf(deps, instance.id, who.subject);
  const session = await processor
    .createCheckout(connection, {
      priceId: price.processor_price_id,
      subject: who.subject,
      planId: plan.id,
      instanceId: instance.id,
      customerId,
      email: customerId ? null : await primaryEmail(deps, who.userId),
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
    })
    .catch((err) => processorFailed(deps, instance.id, err));
  await audit(deps, {
    instanceId: instance.id,
    ...ctx,
    action: 'billing.checkout_started',
    target: who.subject,
    details: { plan: plan.key, processor_session: session.id },
  });
  return { object: 'checkout_session' as const, id: session.id, url: session.url };
}

/** A link to the processor's billing portal for the subject's customer (409 no_subscription before the first one). */
export async function openPortal(deps: D, instance: InstanceContext, subject: string, returnUrl: string) {
  const customerId = await customerOf(deps, instance.id, subject);
  if (!customerId)
    throw new AppError('CONFLICT', { message: 'There is no subscription to manage yet.', meta: { reason: 'no_subscription' } });
  const { processor, connection } = await requireConnection(deps, instance);
  const portal = await processor
    .createPortal(connection, { customerId, returnUrl })
    .catch((err) => processorFailed(deps, instance.id, err));
  return { object: 'billing_portal_session' as const, url: portal.url };
}
