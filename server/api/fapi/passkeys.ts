import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import type { SignedInAuth } from './authenticate';
import { meQuery, type MeQuery } from './users';
import {
  assertPasskeysOn,
  deletePasskey,
  listUserPasskeys,
  registerPasskey,
  registrationOptions,
  renamePasskey,
} from '../../passkeys/passkeys';
import { relyingPartyOf } from '../../passkeys/relying-party';
import {
  attestationInput,
  deletedPasskeySchema,
  passkeyListSchema,
  passkeyName,
  passkeySchema,
  registrationSchema,
} from '../../passkeys/schemas';

/** Passkey endpoints: the signed-in user's own (FAPI /v1/me/passkeys), and a user's on the BAPI and the console. */

const registerBody = z.strictObject({ public_key_credential: attestationInput, name: passkeyName.optional() });
const renameBody = z.strictObject({ name: passkeyName });
/** The session that registers (a personal access token never reaches these routes: their guard wants a session). */
const sessionOf = (auth: SignedInAuth) => ({ userId: auth.me.userId, sessionId: auth.me.sessionId! });
export const myPasskeys = {
  prepare: endpoint<SignedInAuth, Record<string, never>, MeQuery>({
    summary:
      'Start registering a passkey: the WebAuthn creation options (for startRegistration), with a challenge bound to this session for 5 minutes',
    audit: { unaudited: 'hands out a challenge; the registration it allows is audited (passkey.created)' },
    query: meQuery,
    response: registrationSchema,
    handle: ({ deps, auth }) => registrationOptions(deps, auth.instance, relyingPartyOf(auth.instance, auth.servedUrl), sessionOf(auth)),
  }),
  create: endpoint<SignedInAuth, z.output<typeof registerBody>, MeQuery>({
    summary:
      'Finish registering a passkey: the browser’s answer (public_key_credential) verified against this session’s challenge; emits passkey.created',
    audit: { action: 'passkey.created', recordedBy: 'domain' },
    body: registerBody,
    query: meQuery,
    response: passkeySchema,
    handle: ({ deps, auth, body, actor }) =>
      registerPasskey(
        deps,
        auth.instance,
        relyingPartyOf(auth.instance, auth.servedUrl),
        sessionOf(auth),
        { credential: body.public_key_credential, name: body.name },
        auditContextOf(actor),
      ),
  }),
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'The signed-in user’s passkeys (light list)',
    query: meQuery,
    response: passkeyListSchema,
    handle: ({ deps, auth }) => {
      assertPasskeysOn(auth.instance);
      return listUserPasskeys(deps, auth.instance.id, auth.me.userId);
    },
  }),
  rename: endpoint<SignedInAuth, z.output<typeof renameBody>, MeQuery, 'id'>({
    summary: 'Rename one of the user’s passkeys',
    audit: { action: 'passkey.renamed' },
    body: renameBody,
    query: meQuery,
    response: passkeySchema,
    handle: ({ deps, auth, params, body }) => renamePasskey(deps, auth.instance, auth.me.userId, params.id, body.name),
  }),
  remove: endpoint<SignedInAuth, never, MeQuery, 'id'>({
    summary: 'Delete one of the user’s passkeys; emits passkey.deleted',
    audit: { action: 'passkey.deleted' },
    query: meQuery,
    response: deletedPasskeySchema,
    handle: ({ deps, auth, params }) => {
      assertPasskeysOn(auth.instance);
      return deletePasskey(deps, auth.instance, auth.me.userId, params.id);
    },
  }),
};
