/**
 * The FAPI's answers as the hosted pages name them: each an alias of a type generated from
 * the API's schemas (lib/generated/fapi.ts, `npm run ui:generate`), never a copy.
 */
import type { FapiResponse } from '@/lib/generated/fapi';

export type { ApiToken, Client, ClientSession, Environment, Me, MeSession } from '@/lib/generated/fapi';

/** GET /v1/me: the user, and in an impersonation session who impersonates them. */
export type MeWithImpersonator = FapiResponse<'GET /v1/me'>;
/** A sign-in attempt with the client it changed (every /v1/client/sign_ins… answer). */
export type SignInAnswer = FapiResponse<'POST /v1/client/sign_ins'>;
/** A sign-up attempt with the client it changed (every /v1/client/sign_ups… answer). */
export type SignUpAnswer = FapiResponse<'POST /v1/client/sign_ups'>;
