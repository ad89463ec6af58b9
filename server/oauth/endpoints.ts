import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import {
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  listLogoutDeliveries,
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
  logoutDeliveryListSchema,
  updateApplicationBody,
} from './schemas';
import {
  createInitialAccessToken,
  createInitialAccessTokenBody,
  initialAccessTokenListSchema,
  initialAccessTokenSchema,
  initialAccessTokenWithSecretSchema,
  listInitialAccessTokens,
  listInitialAccessTokensQuery,
  revokeInitialAccessToken,
} from './initial-access-tokens';

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
    logoutDeliveries: endpoint<Auth, never, z.output<typeof listApplicationsQuery>, 'id'>({
      summary: 'The application’s back-channel logout deliveries, newest first: status, attempts, last error',
      query: listApplicationsQuery,
      response: logoutDeliveryListSchema,
      handle: ({ deps, auth, params, query }) => listLogoutDeliveries(deps, instanceOf(auth).id, params.id, query),
    }),
  };
}

/** Initial access tokens (RFC 7591 §3) an operator hands out so that clients may register at {issuer}/oauth2/register. */
export function oauthInitialAccessTokensFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    create: endpoint<Auth, z.output<typeof createInitialAccessTokenBody>>({
      summary: 'Create an initial access token for Dynamic Client Registration; its value is in this answer only',
      audit: { action: 'oauth_initial_access_token.created', recordedBy: 'domain' },
      body: createInitialAccessTokenBody,
      response: initialAccessTokenWithSecretSchema,
      status: 201,
      handle: ({ deps, auth, body, actor }) => createInitialAccessToken(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    list: endpoint<Auth, never, z.output<typeof listInitialAccessTokensQuery>>({
      summary: 'List initial access tokens, newest first (cursor pagination)',
      query: listInitialAccessTokensQuery,
      response: initialAccessTokenListSchema,
      handle: ({ deps, auth, query }) => listInitialAccessTokens(deps, instanceOf(auth).id, query),
    }),
    revoke: endpoint<Auth, never, never, 'id'>({
      summary: 'Revoke an initial access token: registrations with it fail from now on',
      audit: { action: 'oauth_initial_access_token.revoked', recordedBy: 'domain' },
      response: initialAccessTokenSchema,
      handle: ({ deps, auth, params, actor }) => revokeInitialAccessToken(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
