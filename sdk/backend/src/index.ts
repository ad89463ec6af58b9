export * from './errors.js';
export { JwksCache, type JwksCacheOptions, type SharedJwksCache, type Jwk } from './jwks.js';
export {
  verifyToken,
  createTokenVerifier,
  type VerifyOptions,
  type SessionAuth,
  type SessionJwtPayload,
  type TokenVerifier,
} from './verify.js';
export {
  authenticateRequest,
  createAuthenticator,
  latchkeyExpress,
  latchkeyHono,
  SESSION_COOKIE,
  type AuthenticateOptions,
  type MiddlewareOptions,
  type RequestLike,
  type RequestState,
} from './authenticate.js';
export {
  createBapiClient,
  backoffDelay,
  CursorList,
  type BapiClient,
  type BapiClientOptions,
  type BapiBody,
  type BapiResponse,
  type Page,
  type Query,
} from './client.js';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookInput } from './webhooks.js';
export { fapiUrlFromPublishableKey } from './encoding.js';
export type * as Bapi from './generated/bapi.js';
