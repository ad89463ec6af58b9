import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import {
  createJwtTemplate,
  createJwtTemplateBody,
  deleteJwtTemplate,
  deletedJwtTemplateSchema,
  getJwtTemplate,
  jwtTemplateListSchema,
  jwtTemplateSchema,
  listJwtTemplates,
  listJwtTemplatesQuery,
  updateJwtTemplate,
  updateJwtTemplateBody,
} from './jwt-templates';

/** The JWT templates of one surface (BAPI, dashboard): the same bodies and answers; only the caller's instance differs. */
export function jwtTemplateEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    list: endpoint<Auth, never, z.output<typeof listJwtTemplatesQuery>>({
      summary: 'List JWT templates, newest first (cursor pagination)',
      query: listJwtTemplatesQuery,
      response: jwtTemplateListSchema,
      handle: ({ deps, auth, query }) => listJwtTemplates(deps, instanceOf(auth).id, query),
    }),
    create: endpoint<Auth, z.output<typeof createJwtTemplateBody>>({
      summary: 'Create a JWT template (name, claims with {{user.…}} shortcodes, lifetime, allowed clock skew)',
      audit: { action: 'jwt_template.created' },
      body: createJwtTemplateBody,
      response: jwtTemplateSchema,
      handle: ({ deps, auth, body, actor }) => createJwtTemplate(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a JWT template',
      response: jwtTemplateSchema,
      handle: ({ deps, auth, params }) => getJwtTemplate(deps, instanceOf(auth).id, params.id),
    }),
    update: endpoint<Auth, z.output<typeof updateJwtTemplateBody>, never, 'id'>({
      summary: 'Update a JWT template (name, claims, lifetime, allowed clock skew; null lifetime or skew: the default)',
      audit: { action: 'jwt_template.updated' },
      body: updateJwtTemplateBody,
      response: jwtTemplateSchema,
      handle: ({ deps, auth, params, body, actor }) => updateJwtTemplate(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a JWT template; getToken with its name answers 404 from then on',
      audit: { action: 'jwt_template.deleted' },
      response: deletedJwtTemplateSchema,
      handle: ({ deps, auth, params, actor }) => deleteJwtTemplate(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
