import type { Deps } from '../../../deps';
import { environmentSchema } from '../../../auth/environment';
import { dialectLine, isJsonObject, type Dialect, type DialectLine, type Exchange, type Reshape } from '../../../http/dialect';
import { findClient } from '../../../sessions/clients';
import type { MeAuth } from '../authenticate';
import { clerkClient } from './client';
import { clerkEnvironment } from './environment';
import { clerkErrorBody } from './errors';
import { DEV_BROWSER_HEADER, isClerkFapiRequest, type ClerkFapiState } from './mode';
import { meantRequest, translateClerkRequest } from './request';
import { clerkResource, clerkSession, clerkSessionVerification } from './shapes';

/**
 * The Clerk dialect of the FAPI, for `@clerk/clerk-js` (and `@clerk/nextjs`, `@clerk/clerk-react`,
 * Clerk's prebuilt components, which all run on it) pointed at an instance's fapi_url with
 * `proxyUrl`. Selected by the parameters clerk-js sends on every request (mode.ts); without them
 * the FAPI is Latchkey's own. Its table of lines is beside the FAPI's route table
 * (`fapiClerkLines`, server/api/fapi/index.ts); a request is translated (request.ts), served by
 * Latchkey's own routes — same guards, limits, audit and `completeSignIn` — and its answer put
 * in Clerk's envelope: `{response, client}` where `client` is the browser's client after the
 * request, in Clerk's shapes (client.ts, shapes.ts, environment.ts, errors.ts), unless its
 * line reshapes it otherwise (the reshapers below).
 */

type Json = Record<string, unknown>;
type X = Exchange<ClerkFapiState>;
export type FapiClerkLine = DialectLine<ClerkFapiState, MeAuth>;
export const fapiClerkLine = dialectLine<ClerkFapiState, MeAuth>;

interface LatchkeyList {
  object: 'list';
  data: unknown[];
}
const isList = (v: unknown): v is LatchkeyList => isJsonObject(v) && v.object === 'list' && Array.isArray(v.data);

/** The client token the browser holds after this answer: the one it set (none if it cleared it), else the one it sent. */
function clientTokenAfter(request: Request, res: Response): string | null {
  for (const cookie of res.headers.getSetCookie()) {
    const m = /^__client=([^;]*);/.exec(cookie);
    if (m) return /max-age=0/i.test(cookie) ? null : m[1]!;
  }
  const sent = /(?:^|;\s*)__client=([^;]+)/.exec(request.headers.get('cookie') ?? '');
  return sent?.[1] ?? null;
}

/** Clerk's client after the request (null without one). */
async function clientAfter(x: X) {
  const token = clientTokenAfter(x.request, x.response);
  if (!token) return null;
  const { deps, instance } = x.state;
  return clerkClient(deps, instance, (await findClient(deps, instance, token)).client);
}

/**
 * Clerk's envelope, what every answer is unless its line says otherwise: the resource in Clerk's
 * shape as `response` and the browser's client; a session (or a user) is the client's copy,
 * which carries what the route's answer does not (the user's memberships, passkeys).
 */
async function envelope(answer: unknown, x: X): Promise<unknown> {
  const client = await clientAfter(x);
  if (isJsonObject(answer) && answer.object === 'client') return { response: client, client: null };
  const inner = (isJsonObject(answer) ? answer.response : undefined) ?? answer;
  const sessionOfClient = (id: unknown) => client?.sessions.find((s) => s.id === id);
  if (!isJsonObject(inner)) return { response: clerkResource(inner), client };
  switch (inner.object) {
    case 'session':
      return { response: sessionOfClient(inner.id) ?? clerkSession(inner, null), client };
    case 'session_verification':
      return { response: clerkSessionVerification(inner, sessionOfClient(inner.session_id) ?? null), client };
    case 'user':
      return { response: client?.sessions.find((s) => s.public_user_data?.user_id === inner.id)?.user ?? clerkResource(inner), client };
    default:
      return { response: clerkResource(inner), client };
  }
}

/** The reshapers lines name. */
export const clerkAnswers = {
  /** Already Clerk's (tokens, the dev browser, the handshake). */
  asIs: (answer) => answer,
  /** The environment in Clerk's shape (what clerk-js and the components read to show fields and factors). */
  environment: (answer, x) => clerkEnvironment(environmentSchema.parse(answer), x.state.instance),
  /** The account's sessions as Clerk's bare array, each with its latest activity. */
  sessions: (answer, x) =>
    isList(answer)
      ? answer.data.map((s) => (isJsonObject(s) ? { ...s, actor: s.impersonated_by ? { sub: s.impersonated_by } : null } : s))
      : envelope(answer, x),
  /** A list Clerk answers as a bare array in its envelope. */
  bareList: (answer, x) => (isList(answer) ? { response: answer.data.map(clerkResource), client: null } : envelope(answer, x)),
  /** A user's profile image, as Clerk's image resource (`user.setProfileImage` answers one). */
  image: (answer) => {
    const user: Json = isJsonObject(answer) ? answer : {};
    return { response: { object: 'image', id: `img_${String(user.id)}`, name: null, public_url: user.image_url ?? null }, client: null };
  },
  /** The answers of a line's calls, one per value (`each`), with the client after the last. */
  each: async (answer, x) => ({ response: Array.isArray(answer) ? answer.map(clerkResource) : [], client: await clientAfter(x) }),
} satisfies Record<string, Reshape<ClerkFapiState>>;

export function fapiClerkDialect(
  deps: Deps,
  lines: readonly FapiClerkLine[],
  routes: Dialect<ClerkFapiState, MeAuth>['routes'],
): Dialect<ClerkFapiState, MeAuth> {
  return {
    lines,
    routes,
    prefix: /^\/fapi\/[^/]+/,
    selects: (req) => isClerkFapiRequest(new URL(req.url)),
    meant: meantRequest,
    translate: (req, renamed) => translateClerkRequest(deps, req, renamed),
    reshape: envelope,
    // Clerk's page of the whole list, and its size.
    reshapeList: (answer) => {
      const data = isJsonObject(answer) && Array.isArray(answer.data) ? answer.data : [];
      return { response: { data: data.map(clerkResource), total_count: isJsonObject(answer) ? answer.total_count : 0 }, client: null };
    },
    reshapeError: clerkErrorBody,
    headers(headers, x) {
      const token = clientTokenAfter(x.request, x.response);
      if (x.state.devBrowser && token && token !== x.state.devBrowser) {
        // The client's token rotated (a sign-in completed): the browser's dev-browser token follows.
        headers.set(DEV_BROWSER_HEADER, token);
        headers.append('access-control-expose-headers', DEV_BROWSER_HEADER);
      }
    },
  };
}
