import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint, redirect, type EndpointContext } from '../http/endpoint';
import type { BapiAuth } from '../api/bapi/authenticate';
import { routeInstance, type ConsoleAuth } from '../api/dashboard/authenticate';
import type { LtiAuth } from '../api/lti/authenticate';
import { completeLaunch, initiateLogin, STATE_TTL_MS, stateCookieName } from './launch';
import { createPlatform, deletePlatform, getPlatform, listPlatforms, updatePlatform, type LtiInstance } from './platforms';
import {
  createPlatformBody,
  deletedPlatformSchema,
  launchParams,
  listPlatformsQuery,
  loginParams,
  type LoginParams,
  platformListSchema,
  platformSchema,
  updatePlatformBody,
} from './schemas';

/** The platform registrations of one surface (BAPI, dashboard): the same bodies and answers; only the caller's instance differs. */
function ltiPlatformsFor<Auth>(instanceOf: (auth: Auth) => LtiInstance) {
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
    get: endpoint<Auth>({
      summary: 'Get an LTI platform',
      response: platformSchema,
      handle: ({ deps, auth, params }) => getPlatform(deps, instanceOf(auth), params.id!),
    }),
    update: endpoint<Auth, z.output<typeof updatePlatformBody>>({
      summary: 'Update an LTI platform (name, endpoints, deployment allowlist, target link URIs); issuer and client_id stay',
      audit: { action: 'lti_platform.updated' },
      body: updatePlatformBody,
      response: platformSchema,
      handle: ({ deps, auth, params, body, actor }) => updatePlatform(deps, instanceOf(auth), params.id!, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth>({
      summary: 'Delete an LTI platform; its launches stop, its users and sessions stay',
      audit: { action: 'lti_platform.deleted' },
      response: deletedPlatformSchema,
      handle: ({ deps, auth, params, actor }) => deletePlatform(deps, instanceOf(auth), params.id!, auditContextOf(actor)),
    }),
  };
}

export const bapiLtiPlatforms = ltiPlatformsFor<BapiAuth>((auth) => auth.instance);
export const dashboardLtiPlatforms = ltiPlatformsFor<ConsoleAuth>(routeInstance);

/** Answered as a redirect or an HTML page; the schema is never a JSON body. */
const noJson = z.never();

const LOGIN_SUMMARY = 'LTI login initiation (third-party initiated login): 302 to the platform’s authorization endpoint with a fresh state and nonce';

async function startLogin({ deps, auth, actor }: Pick<EndpointContext<LtiAuth, unknown, unknown>, 'deps' | 'auth' | 'actor'>, params: LoginParams) {
  const { location, state } = await initiateLogin(deps, auth.instance, params, auth.servedUrl, auditContextOf(actor));
  auth.setCookie(stateCookieName(state), state, Math.floor(STATE_TTL_MS / 1000));
  return redirect(location, 302);
}

export const loginGetEndpoint = endpoint<LtiAuth, never, LoginParams>({
  summary: LOGIN_SUMMARY,
  query: loginParams,
  response: noJson,
  handle: (ctx) => startLogin(ctx, ctx.query),
});

export const loginPostEndpoint = endpoint<LtiAuth, LoginParams>({
  summary: `${LOGIN_SUMMARY} (form post)`,
  body: loginParams,
  audit: { unaudited: 'a login initiation only stores the state its launch consumes; the launch is audited (a refused login is, by the domain)' },
  response: noJson,
  handle: (ctx) => startLogin(ctx, ctx.body),
});

export const launchEndpoint = endpoint<LtiAuth, z.output<typeof launchParams>>({
  summary: 'LTI launch: verifies the platform’s id_token, signs the learner in (JIT user, session with the launch context) and lands on target_link_uri',
  audit: { action: 'lti.launch', recordedBy: 'domain' },
  body: launchParams,
  response: noJson,
  handle: async ({ deps, auth, body, actor }) => {
    const cookieName = stateCookieName(body.state);
    const result = await completeLaunch(
      deps,
      auth.instance,
      { idToken: body.id_token, state: body.state, stateCookie: auth.cookie(cookieName), clientToken: auth.clientToken() },
      auditContextOf(actor),
    );
    auth.setCookie(cookieName, '', 0);
    auth.issueClientToken(result.clientToken);
    return redirect(result.location, 303);
  },
});

