import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { createNetworkAcl, deleteNetworkAcl, getNetworkAcl, listNetworkAcls, updateNetworkAcl } from './network-acls';
import { getRateLimitPolicy, updateRateLimitPolicy, type PolicyInstance } from './policy';
import {
  aclListSchema,
  aclSchema,
  createAclBody,
  deletedAclSchema,
  listAclsQuery,
  patchPolicyBody,
  policySchema,
  updateAclBody,
} from './schemas';

/**
 * The rate-limit policy and network ACL endpoints of one surface (BAPI, dashboard): the
 * same bodies and domain calls; only how the caller's instance is found differs.
 * The domain writes each audit entry in its own transaction, with before/after details.
 */
export function limitEndpointsFor<Auth>(instanceOf: (auth: Auth) => PolicyInstance) {
  return {
    getPolicy: endpoint<Auth>({
      summary: 'Read the rate-limit policy: each budget with its value, default and bounds',
      response: policySchema,
      handle: ({ deps, auth }) => getRateLimitPolicy(deps, instanceOf(auth)),
    }),
    updatePolicy: endpoint<Auth, z.output<typeof patchPolicyBody>>({
      summary: 'Tighten budgets (1 ≤ value ≤ default; null restores the default); in force on every node within 5 s',
      audit: { action: 'rate_limit_policy.updated', recordedBy: 'domain' },
      body: patchPolicyBody,
      response: policySchema,
      handle: ({ deps, auth, body, actor }) => updateRateLimitPolicy(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    listAcls: endpoint<Auth, never, z.output<typeof listAclsQuery>>({
      summary: 'List network ACL rules, newest first (cursor pagination)',
      query: listAclsQuery,
      response: aclListSchema,
      handle: ({ deps, auth, query }) => listNetworkAcls(deps, instanceOf(auth).id, query),
    }),
    createAcl: endpoint<Auth, z.output<typeof createAclBody>>({
      summary: 'Create an allow or deny rule for an IPv4/IPv6 block on some surfaces; in force on every node within 5 s',
      audit: { action: 'network_acl.created', recordedBy: 'domain' },
      body: createAclBody,
      response: aclSchema,
      handle: ({ deps, auth, body, actor }) => createNetworkAcl(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    getAcl: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a network ACL rule',
      response: aclSchema,
      handle: ({ deps, auth, params }) => getNetworkAcl(deps, instanceOf(auth).id, params.id),
    }),
    updateAcl: endpoint<Auth, z.output<typeof updateAclBody>, never, 'id'>({
      summary: 'Update a network ACL rule (action, cidr, surfaces, description)',
      audit: { action: 'network_acl.updated', recordedBy: 'domain' },
      body: updateAclBody,
      response: aclSchema,
      handle: ({ deps, auth, params, body, actor }) => updateNetworkAcl(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
    deleteAcl: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a network ACL rule',
      audit: { action: 'network_acl.deleted', recordedBy: 'domain' },
      response: deletedAclSchema,
      handle: ({ deps, auth, params, actor }) => deleteNetworkAcl(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
