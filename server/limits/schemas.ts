import { z } from 'zod';
import { NETWORK_ACL_ACTIONS } from '../db/schema';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { BUDGET_NAMES, BUDGET_SUBJECTS, BUDGETS, type BudgetName } from './budgets';
import { ACL_SURFACES } from './network-acls';

const budgetValue = z.number().int().nullable();
const BOUNDS =
  'Hits per window: at least 1 (422 too_small) and at most the default (422 too_big), meta.min and meta.max naming both bounds; null restores the default.';

const budgetFields = Object.fromEntries(
  BUDGET_NAMES.map((n) => [n, budgetValue.optional().meta({ description: `${BUDGETS[n].description}. ${BOUNDS}` })]),
) as Record<BudgetName, z.ZodOptional<typeof budgetValue>>;

/**
 * Budget → value, at the top level or under `budgets` (the shape GET answers); the bounds
 * depend on the instance (BAPI's default differs on live ones), so the domain checks them.
 */
export const patchPolicyBody = z
  .strictObject({
    ...budgetFields,
    budgets: z.strictObject(budgetFields).optional().meta({ description: 'The same budgets, nested as GET shows them.' }),
  })
  .transform(({ budgets, ...top }) => ({ ...budgets, ...top }));

const budgetSchema = z.object({
  limit: z.number().int(),
  default: z.number().int(),
  min: z.number().int(),
  max: z.number().int(),
  window_seconds: z.number().int(),
  per: z.enum(BUDGET_SUBJECTS),
  description: z.string(),
});

export const policySchema = z
  .object({
    object: z.literal('rate_limit_policy'),
    budgets: z.object(Object.fromEntries(BUDGET_NAMES.map((n) => [n, budgetSchema])) as Record<BudgetName, typeof budgetSchema>),
    updated_at: z.number().int().nullable(),
  })
  .meta({ id: 'RateLimitPolicy' });

const cidr = z.string().trim().min(1).max(64).meta({
  description:
    'An IPv4 or IPv6 address or CIDR block such as 203.0.113.0/24 or 2001:db8::/32 (422 invalid_cidr otherwise); stored with host bits cleared.',
});
const surfaces = z
  .array(z.enum(ACL_SURFACES))
  .min(1)
  .max(ACL_SURFACES.length * 2);
const description = z.string().max(512);

export const createAclBody = z.strictObject({
  action: z.enum(NETWORK_ACL_ACTIONS),
  cidr,
  surfaces: surfaces.default([...ACL_SURFACES]),
  description: description.optional(),
});

export const updateAclBody = z.strictObject({
  action: z.enum(NETWORK_ACL_ACTIONS).optional(),
  cidr: cidr.optional(),
  surfaces: surfaces.optional(),
  description: description.optional(),
});

export const listAclsQuery = z.object(pageQuery);

export const aclSchema = z
  .object({
    object: z.literal('network_acl'),
    id: z.string(),
    action: z.enum(NETWORK_ACL_ACTIONS),
    cidr: z.string(),
    surfaces: z.array(z.enum(ACL_SURFACES)),
    description: z.string(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'NetworkAcl' });

export const aclListSchema = cursorPageSchema(aclSchema);
export const deletedAclSchema = z.object({ object: z.literal('network_acl'), id: z.string(), deleted: z.literal(true) });
