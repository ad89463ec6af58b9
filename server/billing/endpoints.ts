import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { createPlan, deletePlan, getPlan, listPlans, updatePlan } from './plans';
import {
  billingSettingsSchema,
  createPlanBody,
  listPlansQuery,
  listSubscriptionsQuery,
  planListSchema,
  planSchema,
  subscriptionListSchema,
  updateBillingSettingsBody,
  updatePlanBody,
} from './schemas';
import { getBillingSettings, updateBillingSettings } from './settings';
import { listSubscriptions } from './subscriptions';

type Instance = { id: string; environment: 'test' | 'live' };

/** Plans, processor settings and subscriptions of a surface that manages a whole instance (BAPI, dashboard). */
export function billingEndpointsFor<Auth>(instanceOf: (auth: Auth) => Instance) {
  return {
    createPlan: endpoint<Auth, z.output<typeof createPlanBody>>({
      summary: 'Create a plan for users or organizations: key, name, prices (the processor’s price ids) and feature keys',
      audit: { action: 'plan.created', recordedBy: 'domain' },
      body: createPlanBody,
      response: planSchema,
      handle: ({ deps, auth, body, actor }) => createPlan(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    listPlans: endpoint<Auth, never, z.output<typeof listPlansQuery>>({
      summary: 'List plans, newest first (cursor pagination); filter by payer',
      query: listPlansQuery,
      response: planListSchema,
      handle: ({ deps, auth, query }) => listPlans(deps, instanceOf(auth).id, query),
    }),
    getPlan: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a plan by id or key',
      response: planSchema,
      handle: ({ deps, auth, params }) => getPlan(deps, instanceOf(auth).id, params.id),
    }),
    updatePlan: endpoint<Auth, z.output<typeof updatePlanBody>, never, 'id'>({
      summary: 'Update a plan’s name, description, prices or features (its key and payer are fixed)',
      audit: { action: 'plan.updated', recordedBy: 'domain' },
      body: updatePlanBody,
      response: planSchema,
      handle: ({ deps, auth, params, body, actor }) => updatePlan(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
    deletePlan: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a plan; its subscriptions stay, without features',
      audit: { action: 'plan.deleted', recordedBy: 'domain' },
      response: z.object({ object: z.literal('plan'), id: z.string(), deleted: z.literal(true) }),
      handle: ({ deps, auth, params, actor }) => deletePlan(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
    getSettings: endpoint<Auth>({
      summary:
        'The payment processor settings: whether each secret is set (never the secret), the API base and the webhook URL to give the processor',
      response: billingSettingsSchema,
      handle: ({ deps, auth }) => getBillingSettings(deps, instanceOf(auth).id),
    }),
    updateSettings: endpoint<Auth, z.output<typeof updateBillingSettingsBody>>({
      summary: 'Set the processor’s secret key, webhook signing secret and API base; secrets are write-only and encrypted at rest',
      audit: { action: 'billing_settings.updated', recordedBy: 'domain' },
      body: updateBillingSettingsBody,
      response: billingSettingsSchema,
      handle: ({ deps, auth, body, actor }) => updateBillingSettings(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    listSubscriptions: endpoint<Auth, never, z.output<typeof listSubscriptionsQuery>>({
      summary: 'List subscriptions, newest first (cursor pagination); filter by subject (user_ or org_) and status',
      query: listSubscriptionsQuery,
      response: subscriptionListSchema,
      handle: ({ deps, auth, query }) => listSubscriptions(deps, instanceOf(auth).id, query),
    }),
  };
}
