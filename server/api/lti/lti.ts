import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint, redirect, type EndpointContext } from '../../http/endpoint';
import type { LtiAuth } from './authenticate';
import { completeLaunch, initiateLogin, STATE_TTL_MS, stateCookieName } from '../../lti/launch';
import { launchParams, loginParams, type LoginParams } from '../../lti/schemas';

/** Answered as a redirect or an HTML page; the schema is never a JSON body. */
const noJson = z.never();
const LOGIN_SUMMARY =
  'LTI login initiation (third-party initiated login): 302 to the platform’s authorization endpoint with a fresh state and nonce';
async function startLogin(
  { deps, auth, actor }: Pick<EndpointContext<LtiAuth, unknown, unknown>, 'deps' | 'auth' | 'actor'>,
  params: LoginParams,
) {
  const { location, state } = await initiateLogin(deps, auth.instance, params, auth.servedUrl, auditContextOf(actor));
  auth.setCookie(stateCookieName(state), state, Math.floor(STATE_TTL_MS / 1000));
  return redirect(location, 302);
}

export const ltiTool = {
  login: endpoint<LtiAuth, never, LoginParams>({
    summary: LOGIN_SUMMARY,
    query: loginParams,
    response: noJson,
    handle: (ctx) => startLogin(ctx, ctx.query),
  }),
  loginPost: endpoint<LtiAuth, LoginParams>({
    summary: `${LOGIN_SUMMARY} (form post)`,
    body: loginParams,
    audit: {
      unaudited: 'a login initiation only stores the state its launch consumes; the launch is audited (a refused login is, by the domain)',
    },
    response: noJson,
    handle: (ctx) => startLogin(ctx, ctx.body),
  }),
  launch: endpoint<LtiAuth, z.output<typeof launchParams>>({
    summary:
      'LTI launch: verifies the platform’s id_token, signs the learner in (JIT user, session with the launch context) and lands on target_link_uri',
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
  }),
};
