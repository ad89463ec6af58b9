/**
 * Who made a request, built once per request from the surface's credential and handed
 * to every endpoint. Domain functions that change state take it, and audit entries record
 * its `kind` and `ref`: `key:<key id>`, `operator:<user id>`, `session:<session id>` (an end
 * user signed in), `user:<user id>` (an end user by personal access token), `scim:<token id>` (an
 * organization's directory), `lti:<platform id>` (an LTI platform's verified launch), `portal:<link id>` (an organization's IT
 * admin in the admin portal), `anonymous`.
 */
export type ActorKind =
  | 'secret_key'
  | 'operator'
  | 'user'
  | 'client'
  | 'personal_access_token'
  | 'scim_token'
  | 'oauth_client'
  | 'api_key'
  | 'lti_platform'
  | 'portal'
  | 'anonymous'
  | 'system';

export interface Actor {
  kind: ActorKind;
  /** The credential's id (key, operator, session, token…); null for anonymous callers. */
  id: string | null;
  /** The end user behind a session or token, when the actor is one. */
  userId?: string;
  /** The string audit entries store. */
  ref: string;
  ip: string | null;
  userAgent: string | null;
}

export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** The audit fields of an actor, as domain functions record them. */
export interface AuditContext {
  actor: string;
  actorKind?: ActorKind;
  ip: string | null;
  userAgent: string | null;
}

export const auditContextOf = (a: Actor): AuditContext => ({ actor: a.ref, actorKind: a.kind, ip: a.ip, userAgent: a.userAgent });
/** The system acting on its own (`cli`, `system`, a test): no request behind it. */
export const systemContext = (ref: string): AuditContext => ({ actor: ref, actorKind: 'system', ip: null, userAgent: null });

/** The kind of actor each `ref` prefix names (the constructors below write these prefixes). */
const KIND_OF_PREFIX: Record<string, ActorKind> = {
  key: 'secret_key',
  operator: 'operator',
  session: 'user',
  user: 'personal_access_token',
  client: 'client',
  scim: 'scim_token',
  lti: 'lti_platform',
  portal: 'portal',
  anonymous: 'anonymous',
};

/** The kind an actor string names, for entries given only the string (`cli`, `ticket:…`, `system…` are the system's). */
export const kindOfRef = (ref: string): ActorKind => KIND_OF_PREFIX[ref.split(':')[0]!] ?? 'system';

const actorOf = (kind: ActorKind, id: string | null, ref: string, request: RequestOrigin, userId?: string): Actor => ({
  kind,
  id,
  ref,
  ip: request.ip,
  userAgent: request.userAgent,
  ...(userId ? { userId } : {}),
});

export const anonymousActor = (request: RequestOrigin) => actorOf('anonymous', null, 'anonymous', request);
export const secretKeyActor = (keyId: string, request: RequestOrigin) => actorOf('secret_key', keyId, `key:${keyId}`, request);
export const operatorActor = (userId: string, request: RequestOrigin) => actorOf('operator', userId, `operator:${userId}`, request);
export const sessionUserActor = (userId: string, sessionId: string, request: RequestOrigin) =>
  actorOf('user', sessionId, `session:${sessionId}`, request, userId);
/** A device (FAPI client) before or beside a sign-in: signing out, ending sessions. */
export const clientActor = (clientId: string, request: RequestOrigin) => actorOf('client', clientId, `client:${clientId}`, request);
export const tokenUserActor = (userId: string, request: RequestOrigin) =>
  actorOf('personal_access_token', userId, `user:${userId}`, request, userId);
/** An organization's directory (identity provider) calling the SCIM surface with its token. */
export const scimTokenActor = (tokenId: string, request: RequestOrigin) => actorOf('scim_token', tokenId, `scim:${tokenId}`, request);
/** An LTI platform whose id_token was verified (server/lti): `lti:<platform id>`. */
/** An organization's IT admin in the admin portal, by the link that opened the session: `portal:<link id>`. */
export const portalActor = (linkId: string, request: RequestOrigin) => actorOf('portal', linkId, `portal:${linkId}`, request);
export const ltiPlatformContext = (platformId: string, request: RequestOrigin): AuditContext =>
  auditContextOf(actorOf('lti_platform', platformId, `lti:${platformId}`, request));
