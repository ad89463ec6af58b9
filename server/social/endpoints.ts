import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import type { InstanceContext } from '../instances/instances';
import { createProvider, deleteProvider, getProvider, listProviders, updateProvider } from './providers';
import { createProviderBody, deletedProviderSchema, providerListSchema, providerSchema, updateProviderBody } from './schemas';

/**
 * Social provider endpoints of one surface (BAPI, dashboard): the same bodies and domain
 * calls; only how the caller's instance is found differs. The domain audits each change.
 */
export function socialProviderEndpointsFor<Auth>(instanceOf: (auth: Auth) => Pick<InstanceContext, 'id' | 'fapiUrl' | 'environment'>) {
  return {
    list: endpoint<Auth>({
      summary: 'List the social sign-in providers (at most 20; the client secret is never returned)',
      response: providerListSchema,
      handle: ({ deps, auth }) => listProviders(deps, instanceOf(auth)),
    }),
    create: endpoint<Auth, z.output<typeof createProviderBody>>({
      summary:
        'Add a social provider: a google, microsoft, github, apple, facebook, linkedin, discord, gitlab or slack preset, any OIDC issuer (kind oidc), or the mock provider of test instances (kind mock); client_secret is write-only',
      audit: { action: 'social_provider.created', recordedBy: 'domain' },
      body: createProviderBody,
      response: providerSchema,
      status: 201,
      handle: ({ deps, auth, body, actor }) => createProvider(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a social provider',
      response: providerSchema,
      handle: ({ deps, auth, params }) => getProvider(deps, instanceOf(auth), params.id),
    }),
    update: endpoint<Auth, z.output<typeof updateProviderBody>, never, 'id'>({
      summary: 'Update a social provider (client id or secret, issuer, endpoints, scopes, enabled)',
      audit: { action: 'social_provider.updated', recordedBy: 'domain' },
      body: updateProviderBody,
      response: providerSchema,
      handle: ({ deps, auth, params, body, actor }) => updateProvider(deps, instanceOf(auth), params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a social provider (its users keep their accounts; the strategy stops working)',
      audit: { action: 'social_provider.deleted', recordedBy: 'domain' },
      response: deletedProviderSchema,
      handle: ({ deps, auth, params, actor }) => deleteProvider(deps, instanceOf(auth), params.id, auditContextOf(actor)),
    }),
  };
}
