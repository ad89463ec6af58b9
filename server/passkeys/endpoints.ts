import { endpoint } from '../http/endpoint';
import { deletePasskey, listUserPasskeys } from './passkeys';
import { deletedPasskeySchema, passkeyListSchema } from './schemas';

/** A user's passkeys on a surface that manages every user of an instance (BAPI, dashboard). */
export function userPasskeyEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    list: endpoint<Auth, never, never, 'id'>({
      summary: 'A user’s passkeys (light list; never the public keys)',
      response: passkeyListSchema,
      handle: ({ deps, auth, params }) => listUserPasskeys(deps, instanceOf(auth).id, params.id),
    }),
    remove: endpoint<Auth, never, never, 'id' | 'passkey_id'>({
      summary: 'Delete a user’s passkey (a lost or compromised device); emits passkey.deleted',
      audit: { action: 'passkey.deleted', target: 'passkey_id' },
      response: deletedPasskeySchema,
      handle: ({ deps, auth, params }) => deletePasskey(deps, instanceOf(auth), params.id, params.passkey_id),
    }),
  };
}
