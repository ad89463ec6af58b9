import type { Deps } from '../../deps';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { authenticateLti, ltiActor, ltiProtocol, type LtiAuth } from './authenticate';
import * as lti from './lti';
import { fapiInstanceId } from '../fapi/authenticate';
import { routeTable, type SameAuth } from '../../http/route-table';
import { FAPI_PREFIX as FAPI_BASE } from '../fapi';

/** Public routes: the platform's id_token is what authenticates a launch (verified by the handler). */
export type LtiGuard = { kind: 'public' };
const PUBLIC: LtiGuard = { kind: 'public' };

const route = routeTable<LtiGuard, LtiAuth, LtiGuard, SameAuth<LtiAuth>, typeof FAPI_BASE>({ prefix: FAPI_BASE });

/**
 * LTI 1.3 under each instance's fapi_url, one route a line: form posts and query strings in,
 * redirects and HTML pages out (server/api/lti/authenticate.ts, ltiProtocol). Cross-site by design: the
 * FAPI's origin check does not apply; state and nonce bind the login to its launch.
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const ltiRoutes: RouteEntry<LtiGuard, LtiAuth>[] = [
  route('GET',  '/lti/login',  PUBLIC, lti.ltiTool.login),
  route('POST', '/lti/login',  PUBLIC, lti.ltiTool.loginPost),
  route('POST', '/lti/launch', PUBLIC, lti.ltiTool.launch),
];

export function createLti(deps: Deps) {
  return buildSurface<LtiGuard, LtiAuth>(
    deps,
    {
      name: 'lti',
      routes: ltiRoutes,
      protocol: ltiProtocol,
      instanceOf: async (c) => fapiInstanceId(c),
      authenticate: (c) => authenticateLti(deps, c),
      actorOf: ltiActor,
    },
    ROUTER_GUARDS,
  );
}
