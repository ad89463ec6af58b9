import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import { AppError, isAppError, notFound } from '../../http/errors';
import { isId } from '../../db/ids';
import type { BudgetName } from '../../limits/budgets';
import { enforceBudget, enforceIpBudget } from '../../limits/policy';
import { bearerToken, clientIp } from '../../http/request-context';
import { checkOrigin } from './origin';
import { fapiAddressOf, instanceContext, publishableKeyFor, type InstanceContext } from '../../instances/instances';
import { pathFapiUrl, servedFapiUrl } from '../../instances/custom-domain';
import { clientCookieSpec, findClient, type ClientRow } from '../../sessions/clients';
import { anonymousActor, clientActor, sessionUserActor, tokenUserActor, type Actor, type RequestOrigin } from '../../http/actor';
import type { OrganizationView } from '../../organizations/organization-view';
import { getOrganization } from '../../organizations/organizations';
import { memberAccess } from '../../organizations/memberships';
import { REASONS } from '../../organizations/reasons';
import type { SystemPermission } from '../../organizations/roles';
import type { MeScope } from '../../users/api-tokens';
import { resolveMe, type Me } from '../../users/me';
import { refuseImpersonation, type ImpersonationRule } from '../../users/impersonation';
import { assertReverified } from '../../auth/reverification';
import { requirementOf } from '../../sessions/factor-verification';
import { setAnswerHeader } from '../../http/answer-headers';

/**
 * FAPI credentials. The instance comes from the path (`/fapi/<instance_id>`); the
 * publishable key, when sent (`x-publishable-key` or `?publishable_key=`), must be that
 * instance's. The client travels as the `__client` cookie (web: HttpOnly, SameSite=Lax,
 * scoped to the fapi_url path, Secure except plain-http localhost) or as
 * `Authorization: Bearer ct_…` (native: no cookie is ever set; a new token comes back in
 * the `Authorization` response header). A request is native when it carries an
 * Authorization header or `?_is_native=1`.
 */
export interface FapiGuard {
  /** `required`: the publishable key must be sent; `optional`: it is checked only when sent. */
  key: 'required' | 'optional';
  /** Resolve the client from its cookie or bearer token. An invalid one is ignored (and its cookie cleared). */
  client: boolean;
  /** A per-IP budget (DESIGN.md, "Default limits"). */
  limit?: keyof typeof FAPI_BUDGETS;
  /** Cache-Control of a successful answer; everything else is no-store. */
  cache?: string;
  /**
   * A signed-in user, resolved before the handler (`?session_id=` picks one of the
   * client's sessions): `tokenScope` also accepts a `uat_` token holding it; `allowPending`
   * a session awaiting MFA enrollment; `organizations` needs organizations turned on.
   */
  user?: { tokenScope?: MeScope; allowPending?: boolean; organizations?: boolean };
  /** Membership of the `:id` organization (by id or slug), holding this permission; `member`: any member. */
  org?: SystemPermission | 'member';
  /**
   * What an impersonation session may not do here (403 FORBIDDEN, reason `impersonation`),
   * checked once the user is resolved, before the input is read (or, for a rule naming body
   * fields, once the body is: authorizeFapi).
   */
  impersonation?: ImpersonationRule;
  /**
   * Each request sends mail to an address the signed-in member chose, on the organization's
   * behalf: it spends the sender's and the organization's sending budgets (SENDING_BUDGETS),
   * once the membership and permission are checked.
   */
  sends?: keyof typeof SENDING_BUDGETS;
  /**
   * A sensitive account change: the signed-in session's factors must have been proved within
   * the instance's `reverification_window_minutes` (Clerk's strict level; server/auth/reverification.ts),
   * else 403 REVERIFICATION_REQUIRED with `meta.session_verification`; checked once the user is
   * resolved, after impersonation. `unlessBodyHas`: a body naming one of these fields carries its
   * own proof (the current password), which the handler checks; then the rule is checked once
   * the body is read (authorizeFapi).
   */
  reverification?: { unlessBodyHas?: readonly string[] };
}

export interface FapiAuth {
  instance: InstanceContext;
  /** The fapi_url this request reached the instance by (its custom domain's root, or its path under PUBLIC_URL). */
  servedUrl: string;
  mode: 'web' | 'native';
  /** The client of this request, or null for a signed-out visitor (or when the route does not resolve clients). */
  client: ClientRow | null;
  /** The raw token `client` was found by, so that a sign-in can renew its cookie. */
  clientToken: string | null;
  /** Hands a client token to the caller: the cookie (web) or the Authorization response header (native). */
  issueClientToken(token: string): void;
  /** Forgets the client on the caller's side (web: expires the cookie). */
  clearClientToken(): void;
  /**
   * Web: sets another HttpOnly cookie at the fapi_url's path, beside `__client` (a flow's
   * binding, server/auth/flow-binding.ts). `sameSiteNone`: it must come back on a cross-site
   * POST (SAML's ACS), so `SameSite=None; Secure`. Native: nothing is set.
   */
  setCookie(name: string, value: string, maxAgeSeconds: number, opts?: { sameSiteNone?: boolean }): void;
}

/** The auth of every FAPI route, with the raw bearer so that a `uat_` token can be told from a native client token. */
export interface MeAuth extends FapiAuth {
  bearer: string | null;
}

/** The auth of a route whose guard names `user`: the router resolved who is signed in. */
export interface SignedInAuth extends FapiAuth {
  me: Me;
}

/** The auth of a route whose guard names `org`: the caller's membership of the path's organization. */
export interface OrgMemberAuth extends SignedInAuth {
  org: { organization: OrganizationView; role: string; permissions: string[] };
}

/** The end user acting: their session, or their personal access token; anonymous before sign-in. */
export function fapiActor(auth: FapiAuth, request: RequestOrigin): Actor {
  const me = (auth as Partial<SignedInAuth>).me;
  if (!me) return auth.client ? clientActor(auth.client.id, request) : anonymousActor(request);
  return me.sessionId ? sessionUserActor(me.userId, me.sessionId, request) : tokenUserActor(me.userId, request);
}

/** Resolves the guard's signed-in user and organization membership onto the auth. */
async function resolveGuardedUser(deps: Deps, c: Context, guard: FapiGuard, auth: MeAuth) {
  if (!guard.user) return;
  if (guard.user.organizations && !auth.instance.settings.organizations_enabled) {
    throw new AppError('FORBIDDEN', {
      message: 'Organizations are turned off for this application.',
      meta: { reason: REASONS.organizations_disabled },
    });
  }
  const sessionId = c.req.query('session_id');
  const me = await resolveMe(deps, auth, { sessionId, tokenScope: guard.user.tokenScope, allowPending: guard.user.allowPending });
  refuseImpersonation(guard.impersonation, me, null);
  if (guard.reverification && !guard.reverification.unlessBodyHas)
    await assertReverified(deps, auth.instance, me, requirementOf(auth.instance.settings));
  Object.assign(auth, { me });
  if (!guard.org) return;
  const orgIdOrSlug = c.req.param('id') ?? '';
  const organization = await getOrganization(deps, auth.instance.id, orgIdOrSlug).catch((e: unknown) => {
    if (isAppError(e) && e.code === 'NOT_FOUND') return null;
    throw e;
  });
  const access = organization && (await memberAccess(deps.db, auth.instance.id, organization.id, me.userId));
  if (!organization || !access) throw notFound('organization');
  if (guard.org !== 'member' && !access.permissions.includes(guard.org)) {
    throw new AppError('FORBIDDEN', {
      message: `Your role lacks the ${guard.org} permission.`,
      meta: { reason: REASONS.missing_permission, permission: guard.org },
    });
  }
  Object.assign(auth, { org: { organization, role: access.role, permissions: access.permissions } });
  if (guard.sends) await spendSendingBudgets(deps, c, auth as MeAuth & OrgMemberAuth, SENDING_BUDGETS[guard.sends]);
}

/** The budgets (server/limits/budgets.ts) of mail that end users aim: per sender and per organization. */
const SENDING_BUDGETS = {
  organization_invitation: { user: 'invitations_per_user', organization: 'invitations_per_organization' },
} as const satisfies Record<string, { user: BudgetName; organization: BudgetName }>;

async function spendSendingBudgets(deps: Deps, c: Context, auth: OrgMemberAuth, budgets: { user: BudgetName; organization: BudgetName }) {
  const request = { ip: clientIp(c, deps.config), userAgent: c.req.header('user-agent') ?? null };
  const scope = { actor: fapiActor(auth, request).ref, request };
  await enforceBudget(deps, 'fapi', auth.instance, budgets.user, auth.me.userId, scope);
  await enforceBudget(deps, 'fapi', auth.instance, budgets.organization, auth.org.organization.id, scope);
}

/** The guard's checks that need the validated body: an impersonation rule naming body fields. */
export async function authorizeFapi(deps: Pick<Deps, 'db' | 'clock'>, guard: FapiGuard, auth: MeAuth, body: unknown) {
  const sent = body !== null && typeof body === 'object' ? Object.keys(body) : [];
  const me = (auth as Partial<SignedInAuth>).me;
  refuseImpersonation(guard.impersonation, me, sent);
  const selfProved = guard.reverification?.unlessBodyHas;
  if (me && selfProved && !selfProved.some((f) => sent.includes(f)))
    await assertReverified(deps, auth.instance, me, requirementOf(auth.instance.settings));
}

/** The per-IP budget of each guard's `limit` (server/limits/budgets.ts; the instance's policy may tighten it). */
export const FAPI_BUDGETS = {
  sign_in: 'sign_in_per_ip',
  sign_up: 'sign_up_per_ip',
  /** Password and code attempts (first and second factor, sign-up verification, new password). */
  attempt: 'attempts_per_ip',
  /** Verification-code sends; the per-address reissue caps apply besides (server/verification/codes.ts). */
  verification: 'verification_sends_per_ip',
  /** A provider's redirect back (social sign-in callbacks). */
  federation: 'federation_per_ip',
} as const satisfies Record<string, BudgetName>;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_KEY_LENGTH = 512;

/**
 * `servedUrl`: the fapi_url the request came in by (a custom domain's root, or the path under
 * PUBLIC_URL). `crossSite`: the cookie must travel inside a third-party iframe (the LTI
 * flow): SameSite=None; Secure; Partitioned (CHIPS), always Secure as SameSite=None requires.
 */
export function cookieAttributes(
  instance: Pick<InstanceContext, 'kind'>,
  servedUrl: string,
  opts: { crossSite?: boolean; path?: string } = {},
): string {
  const url = new URL(servedUrl);
  const path = opts.path ?? clientCookieSpec({ kind: instance.kind, fapiUrl: servedUrl }).path;
  if (opts.crossSite) return `Path=${path}; HttpOnly; Secure; SameSite=None; Partitioned`;
  const secure = !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
  return `Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** `__client` at the fapi_url path; the platform instance's is `__console_client` at `/` (sessions/clients.ts). */
export const clientCookie = (
  instance: InstanceContext,
  token: string,
  maxAgeSeconds: number,
  servedUrl = instance.fapiUrl,
  opts: { crossSite?: boolean } = {},
) => `${clientCookieSpec(instance).name}=${token}; ${cookieAttributes(instance, servedUrl, opts)}; Max-Age=${maxAgeSeconds}`;
export const clearedClientCookie = (instance: InstanceContext, servedUrl = instance.fapiUrl) =>
  `${clientCookieSpec(instance).name}=; ${cookieAttributes(instance, servedUrl)}; Max-Age=0`;

/** The instance's publishable key, and the one derived from its path under PUBLIC_URL, which stays valid after a custom domain is set. */
const acceptsPublishableKey = (deps: Deps, instance: InstanceContext, key: string) =>
  key === instance.publishableKey ||
  (!!instance.customDomain && key === publishableKeyFor(instance.environment, pathFapiUrl(deps.config, instance.id)));

function checkPublishableKey(deps: Deps, c: Context, instance: InstanceContext, required: boolean) {
  const sent = [c.req.header('x-publishable-key'), ...(c.req.queries('publishable_key') ?? [])].filter((k) => k !== undefined);
  if (sent.length === 0) {
    if (!required) return;
    throw new AppError('PUBLISHABLE_KEY_INVALID', {
      message: 'Send the publishable key as the x-publishable-key header or the publishable_key query parameter.',
      meta: { reason: 'missing' },
    });
  }
  for (const key of sent) {
    if (key.length > MAX_KEY_LENGTH || !fapiAddressOf(key)) {
      throw new AppError('PUBLISHABLE_KEY_INVALID', {
        message: 'The publishable key is malformed; it looks like pk_test_… or pk_live_….',
        meta: { reason: 'malformed' },
      });
    }
    if (!acceptsPublishableKey(deps, instance, key)) {
      throw new AppError('PUBLISHABLE_KEY_INVALID', {
        message: 'The publishable key is not this instance’s.',
        meta: { reason: 'wrong_instance' },
      });
    }
  }
}

const isNativeFlag = (v: string | undefined) => v === '1' || v === 'true';

/** The instance of the fapi_url path, when it is well formed (the network ACL guard's instance). */
export function fapiInstanceId(c: Context): string | null {
  const instanceId = c.req.param('instanceId');
  return instanceId && isId('ins', instanceId) ? instanceId : null;
}

export async function authenticateFapi(deps: Deps, c: Context, guard: FapiGuard): Promise<MeAuth> {
  setAnswerHeader(c, 'cache-control', 'no-store');
  const instanceId = fapiInstanceId(c);
  if (!instanceId) throw notFound('instance');
  const instance = await instanceContext(deps, instanceId);
  checkPublishableKey(deps, c, instance, guard.key === 'required');
  const servedUrl = servedFapiUrl(c.env, deps.config, instance);

  if (guard.limit) await enforceIpBudget(deps, c, 'fapi', instance, FAPI_BUDGETS[guard.limit]);

  const authorization = c.req.header('authorization');
  const mode = authorization !== undefined || isNativeFlag(c.req.query('_is_native')) ? 'native' : 'web';
  // `__client` replaces any earlier `__client` of this answer; the other cookies set are kept.
  const otherCookies: string[] = [];
  const setClientCookie = (cookie: string) => {
    setAnswerHeader(c, 'set-cookie', cookie);
    for (const other of otherCookies) setAnswerHeader(c, 'set-cookie', other, { append: true });
  };
  const auth: MeAuth = {
    instance,
    servedUrl,
    mode,
    client: null,
    clientToken: null,
    bearer: bearerToken(authorization),
    issueClientToken(token) {
      if (mode === 'native') setAnswerHeader(c, 'authorization', `Bearer ${token}`);
      else setClientCookie(clientCookie(instance, token, instance.settings.session_lifetime_seconds, servedUrl));
    },
    clearClientToken() {
      if (mode === 'web') setClientCookie(clearedClientCookie(instance, servedUrl));
    },
    setCookie(name, value, maxAgeSeconds, opts = {}) {
      if (mode === 'native') return;
      const attributes = opts.sameSiteNone
        ? `Path=${clientCookieSpec({ kind: instance.kind, fapiUrl: servedUrl }).path}; HttpOnly; Secure; SameSite=None`
        : cookieAttributes(instance, servedUrl);
      const cookie = `${name}=${value}; ${attributes}; Max-Age=${maxAgeSeconds}`;
      otherCookies.push(cookie);
      setAnswerHeader(c, 'set-cookie', cookie, { append: true });
    },
  };
  if (!guard.client) return auth;
  await resolveClient(deps, c, auth, authorization, mode);
  // CSRF: one guard for every route that resolves the client (see origin.ts).
  checkOrigin(c, instance, mode, servedUrl);
  await resolveGuardedUser(deps, c, guard, auth);
  return auth;
}

async function resolveClient(deps: Deps, c: Context, auth: FapiAuth, authorization: string | undefined, mode: 'web' | 'native') {
  const { instance } = auth;
  const presented =
    authorization !== undefined
      ? (bearerToken(authorization) ?? '')
      : mode === 'web'
        ? getCookie(c, clientCookieSpec(instance).name)
        : undefined;
  if (presented === undefined) return;
  const found = await findClient(deps, instance, presented);
  if (found.client) {
    auth.client = found.client;
    auth.clientToken = presented;
  } else {
    // Never 401 for a bad client: it is a signed-out visitor, and the stale cookie goes.
    auth.clearClientToken();
  }
}
