import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { createPlatform, deletePlatform, getPlatform, listPlatforms, updatePlatform, type LtiInstance } from './platforms';
import {
  createPlatformBody,
  deletedPlatformSchema,
  listPlatformsQuery,
  platformListSchema,
  platformSchema,
  updatePlatformBody,
} from './schemas';

/** The platform registrations of one surface (BAPI, dashboard): the same bodies and answers; only the caller's instance differs. */
export function ltiPlatformsFor<Auth>(instanceOf: (auth: Auth) => LtiInstance) {
  return {
    create: endpoint<Auth, z.output<typeof createPlatformBody>>({
      summary: 'Register an LTI 1.3 platform (issuer, client_id, endpoints, deployment allowlist, target link URIs)',
      audit: { action: 'lti_platform.created' },
      body: createPlatformBody,
      response: platformSchema,
      status: 201,
      handle: ({ deps, auth, body, actor }) => createPlatform(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    list: endpoint<Auth, never, z.output<typeof listPlatformsQuery>>({
      summary: 'List LTI platforms, newest first (cursor pagination)',
      query: listPlatformsQuery,
      response: platformListSchema,
      handle: ({ deps, auth, query }) => listPlatforms(deps, instanceOf(auth), query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get an LTI platform',
      response: platformSchema,
      handle: ({ deps, auth, params }) => getPlatform(deps, instanceOf(auth), params.id),
    }),
    update: endpoint<Auth, z.output<typeof updatePlatformBody>, never, 'id'>({
      summary: 'Update an LTI platform (name, endpoints, deployment allowlist, target link URIs); issuer and client_id stay',
      audit: { action: 'lti_platform.updated' },
      body: updatePlatformBody,
      response: platformSchema,
      handle: ({ deps, auth, params, body, actor }) => updatePlatform(deps, instanceOf(auth), params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete an LTI platform; its launches stop, its users and sessions stay',
      audit: { action: 'lti_platform.deleted' },
      response: deletedPlatformSchema,
      handle: ({ deps, auth, params, actor }) => deletePlatform(deps, instanceOf(auth), params.id, auditContextOf(actor)),
    }),
  };
}
