import type { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import type { OrgMemberAuth, SignedInAuth } from './authenticate';
import { meQuery } from './users';
import { openPortal, startCheckout } from '../../billing/checkout';
import { checkoutBody, checkoutSchema, currentPlanSchema, portalBody, portalSchema } from '../../billing/schemas';
import { currentSubscription } from '../../billing/subscriptions';

type CheckoutBody = z.output<typeof checkoutBody>;
type PortalBody = z.output<typeof portalBody>;
type MeQuery = z.output<typeof meQuery>;

/**
 * Self-service billing on the FAPI: the signed-in user's own plan (`/v1/me/billing/…`), and
 * an organization's for its admins (`/v1/organizations/:id/billing/…`).
 */
function billingEndpointsFor<Auth extends SignedInAuth>(whose: string, payer: 'user' | 'organization', subjectOf: (auth: Auth) => string) {
  return {
    status: endpoint<Auth, never, MeQuery>({
      summary: `${whose} current subscription and plan (null when none)`,
      query: meQuery,
      response: currentPlanSchema,
      handle: async ({ deps, auth }) => ({
        object: 'billing_status' as const,
        subject: subjectOf(auth),
        subscription: await currentSubscription(deps.db, auth.instance.id, subjectOf(auth)),
      }),
    }),
    checkout: endpoint<Auth, CheckoutBody, MeQuery>({
      summary: `Start a checkout of a plan for ${whose} account: answers the processor’s checkout URL`,
      audit: { action: 'billing.checkout_started', recordedBy: 'domain' },
      body: checkoutBody,
      query: meQuery,
      response: checkoutSchema,
      handle: ({ deps, auth, body, actor }) =>
        startCheckout(deps, auth.instance, { subject: subjectOf(auth), payer, userId: auth.me.userId }, body, auditContextOf(actor)),
    }),
    portal: endpoint<Auth, PortalBody, MeQuery>({
      summary: `A link to the processor’s billing portal for ${whose} account`,
      audit: { unaudited: 'a link only; what changes there arrives by the processor’s webhooks' },
      body: portalBody,
      query: meQuery,
      response: portalSchema,
      handle: ({ deps, auth, body }) => openPortal(deps, auth.instance, subjectOf(auth), body.return_url),
    }),
  };
}

export const myBilling = billingEndpointsFor<SignedInAuth>('the signed-in user’s', 'user', (auth) => auth.me.userId);
export const organizationBilling = billingEndpointsFor<OrgMemberAuth>(
  'the organization’s',
  'organization',
  (auth) => auth.org.organization.id,
);
