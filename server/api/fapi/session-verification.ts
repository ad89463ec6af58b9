import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import type { FapiAuth } from './authenticate';
import {
  attemptFirstFactorVerification,
  attemptSecondFactorVerification,
  prepareFirstFactorVerification,
  prepareSecondFactorVerification,
  startSessionVerification,
} from '../../auth/reverification';
import { VERIFICATION_LEVELS } from '../../sessions/factor-verification';
import { assertionInput } from '../../passkeys/schemas';
import { relyingPartyOf } from '../../passkeys/relying-party';
import type { AuthenticationResponseJSON } from '../../passkeys/webauthn';

/**
 * Session verification (reverification), on a session of this client named by the path: the
 * same resource for Latchkey's contract and Clerk's (`session.startVerification({ level })`):
 * started for a level, then its first factor (password, email_code, passkey) and second factor
 * (totp, backup_code, passkey) prepared and attempted. The rules, limits and lockout are
 * server/auth/reverification.ts's; these only take the input.
 */
const factorSchema = z.object({
  strategy: z.string(),
  email_address_id: z.string().optional(),
  safe_identifier: z.string().optional(),
  primary: z.boolean().optional(),
});
const verificationSchema = z
  .object({
    object: z.literal('verification'),
    status: z.string(),
    strategy: z.string(),
    attempts: z.number().nullable(),
    expire_at: z.number().nullable(),
    /** A passkey step: the assertion options (PublicKeyCredentialRequestOptionsJSON) as JSON. */
    nonce: z.string().optional(),
  })
  .nullable();

const sessionVerificationSchema = z
  .object({
    object: z.literal('session_verification'),
    id: z.string(),
    session_id: z.string(),
    status: z.enum(['needs_first_factor', 'needs_second_factor', 'complete']),
    level: z.enum(VERIFICATION_LEVELS),
    supported_first_factors: z.array(factorSchema),
    supported_second_factors: z.array(factorSchema).nullable(),
    first_factor_verification: verificationSchema,
    second_factor_verification: verificationSchema,
    /** Minutes since the session's first and second factor were proved (-1: a second factor never was). */
    factor_verification_age: z.tuple([z.number(), z.number()]),
    started_at: z.number(),
  })
  .meta({ id: 'SessionVerification' });

const startBody = z.strictObject({ level: z.enum(VERIFICATION_LEVELS) });
const prepareFirstBody = z.strictObject({
  strategy: z.enum(['email_code', 'password', 'passkey']),
  email_address_id: z.string().min(1).max(64).optional(),
});
const passkeyBody = z.strictObject({ strategy: z.literal('passkey'), public_key_credential: assertionInput });
const code = z.string().trim().min(1).max(64);
const attemptFirstBody = z.discriminatedUnion('strategy', [
  z.strictObject({ strategy: z.literal('password'), password: z.string().min(1).max(4096) }),
  z.strictObject({ strategy: z.literal('email_code'), code }),
  passkeyBody,
]);
const codeStrategy = z.enum(['totp', 'backup_code']);
const prepareSecondBody = z.strictObject({ strategy: z.enum(['totp', 'backup_code', 'passkey']) });
const attemptSecondBody = z.discriminatedUnion('strategy', [z.strictObject({ strategy: codeStrategy, code }), passkeyBody]);

/** A passkey's answer goes with the relying party the request came by (server/passkeys/relying-party.ts). */
const withRp = <I extends { strategy: string }>(input: I, auth: FapiAuth) =>
  'public_key_credential' in input
    ? {
        strategy: 'passkey' as const,
        credential: input.public_key_credential as AuthenticationResponseJSON,
        rp: relyingPartyOf(auth.instance, auth.servedUrl),
      }
    : (input as Exclude<I, { public_key_credential: unknown }>);

const STEP = { unaudited: 'starts or prepares a verification of the session; a proved factor is audited as session.reverified' };

export const sessionVerifications = {
  start: endpoint<FapiAuth, z.output<typeof startBody>, never, 'id'>({
    summary:
      'Start verifying a session of this client again, for a level: first_factor, second_factor (the first for a user without one) or multi_factor',
    audit: STEP,
    body: startBody,
    response: sessionVerificationSchema,
    handle: ({ deps, auth, params, body }) => startSessionVerification(deps, auth.instance, auth.client?.id ?? null, params.id, body.level),
  }),
  prepareFirstFactor: endpoint<FapiAuth, z.output<typeof prepareFirstBody>, never, 'id'>({
    summary:
      'Prepare the first factor of a session verification: email_code sends a code to a verified address (email_address_id, default the primary one); passkey answers the assertion options as nonce',
    audit: STEP,
    body: prepareFirstBody,
    response: sessionVerificationSchema,
    handle: ({ deps, auth, params, body, request }) =>
      prepareFirstFactorVerification(deps, auth.instance, auth.client?.id ?? null, params.id, body, {
        acceptLanguage: request.acceptLanguage,
        rp: relyingPartyOf(auth.instance, auth.servedUrl),
      }),
  }),
  attemptFirstFactor: endpoint<FapiAuth, z.output<typeof attemptFirstBody>, never, 'id'>({
    summary: 'Prove the first factor of a session verification: the password, the emailed code, or a passkey (both factors at once)',
    audit: { action: 'session.reverified', recordedBy: 'domain' },
    body: attemptFirstBody,
    response: sessionVerificationSchema,
    handle: ({ deps, auth, params, body, actor }) =>
      attemptFirstFactorVerification(deps, auth.instance, auth.client?.id ?? null, params.id, withRp(body, auth), auditContextOf(actor)),
  }),
  prepareSecondFactor: endpoint<FapiAuth, z.output<typeof prepareSecondBody>, never, 'id'>({
    summary:
      'Prepare the second factor of a session verification (totp, backup_code: nothing is sent; passkey: the assertion options as nonce)',
    audit: STEP,
    body: prepareSecondBody,
    response: sessionVerificationSchema,
    handle: ({ deps, auth, params, body }) =>
      prepareSecondFactorVerification(
        deps,
        auth.instance,
        auth.client?.id ?? null,
        params.id,
        body.strategy,
        relyingPartyOf(auth.instance, auth.servedUrl),
      ),
  }),
  attemptSecondFactor: endpoint<FapiAuth, z.output<typeof attemptSecondBody>, never, 'id'>({
    summary: 'Prove the second factor of a session verification: a current TOTP code, an unused backup code, or a passkey',
    audit: { action: 'session.reverified', recordedBy: 'domain' },
    body: attemptSecondBody,
    response: sessionVerificationSchema,
    handle: ({ deps, auth, params, body, actor }) =>
      attemptSecondFactorVerification(deps, auth.instance, auth.client?.id ?? null, params.id, withRp(body, auth), auditContextOf(actor)),
  }),
};
