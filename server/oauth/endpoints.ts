import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import {
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  rotateApplicationSecret,
  updateApplication,
} from './applications';
import {
  applicationListSchema,
  applicationSchema,
  applicationWithSecretSchema,
  createApplicationBody,
  deletedApplicationSchema,
  listApplicationsQuery,
  updateApplicationBody,
} from './schemas';

/** The OAuth applications of one surface (BAPI, dashboard): the same bodies and answers; only the caller's instance differs. */
export function oauthApplicationsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    create: endpoint<Auth, z.output<typeof createApplicationBody>>({
      summary: 'Create an OAuth application; a confidential one’s client_secret is in this answer only',
      audit: { action: 'oauth_application.created' },
      body: createApplicationBody,
      response: applicationWithSecretSchema,
      status: 201,
      handle: ({ deps, auth, body, actor }) => createApplication(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    list: endpoint<Auth, never, z.output<typeof listApplicationsQuery>>({
      summary: 'List OAuth applications, newest first (cursor pagination)',
      query: listApplicationsQuery,
      response: applicationListSchema,
      handle: ({ deps, auth, query }) => listApplications(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get an OAuth application',
      response: applicationSchema,
      handle: ({ deps, auth, params }) => getApplication(deps, instanceOf(auth).id, params.id),
    }),
    update: endpoint<Auth, z.output<typeof updateApplicationBody>, never, 'id'>({
      summary: 'Update an OAuth application (name, redirect URIs, scopes, consent screen)',
      audit: { action: 'oauth_application.updated' },
      body: updateApplicationBody,
      response: applicationSchema,
      handle: ({ deps, auth, params, body, actor }) => updateApplication(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete an OAuth application; its tokens stop being active',
      audit: { action: 'oauth_application.deleted' },
      response: deletedApplicationSchema,
      handle: ({ deps, auth, params, actor }) => deleteApplication(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
    rotateSecret: endpoint<Auth, never, never, 'id'>({
      summary: 'Replace the client secret (the old one stops working); the new one is in this answer only',
      audit: { action: 'oauth_application.secret_rotated' },
      response: applicationWithSecretSchema,
      handle: ({ deps, auth, params, actor }) => rotateApplicationSecret(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
