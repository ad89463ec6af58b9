import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software WebAuthn authenticator for API tests: ES256 keys from node:crypto, the
 * attestation object and COSE key encoded with the CBOR encoder @simplewebauthn/server
 * ships. It answers creation and request options as a browser would hand them to the page
 * (`PublicKeyCredential.toJSON()`), with `fmt: "none"` attestation, user presence and
 * verification, and a counter that moves on each assertion. Tests may clone a credential
 * (the same key, its counter behind) or lie about what they sign.
 */

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  signCount: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
  excludeCredentials?: { id: string }[];
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export function softAuthenticator(opts: { aaguid?: Buffer; synced?: boolean } = {}) {
  const aaguid = opts.aaguid ?? Buffer.alloc(16);
  const credentials: SoftCredential[] = [];

  function coseKey(publicKey: KeyObject): Uint8Array {
    const jwk = publicKey.export({ format: 'jwk' });
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  const flags = (extra: number, o: { userVerified?: boolean }) =>
    UP | (o.userVerified === false ? 0 : UV) | (opts.synced ? BE | BS : 0) | extra;

  return {
    credentials,
    /** navigator.credentials.create(): a new resident ES256 credential for the options' rp and user. */
    register(options: CreationOptions, origin: string, o: { userVerified?: boolean; rpId?: string } = {}) {
      const rpId = o.rpId ?? options.rp.id ?? new URL(origin).hostname;
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const id = randomBytes(16);
      const credential: SoftCredential = { id, privateKey, publicKey, rpId, userHandle: options.user.id, signCount: 0 };
      credentials.push(credential);
      const clientDataJSON = Buffer.from(
        JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }),
      );
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(id.length);
      const authData = Buffer.concat([sha256(rpId), Buffer.from([flags(AT, o)]), u32(0), aaguid, idLength, id, coseKey(publicKey)]);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]) as never,
      );
      return {
        credential,
        response: {
          id: b64url(id),
          rawId: b64url(id),
          type: 'public-key' as const,
          response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
          clientExtensionResults: {},
          authenticatorAttachment: 'platform' as const,
        },
      };
    },
    /**
     * navigator.credentials.get(): signs the options' challenge with `credential` (default:
     * the first one of the rp the options allow). `signCount` overrides the counter sent
     * (a clone's), `challenge`/`origin`/`rpId` what is claimed.
     */
    assert(
      options: RequestOptions,
      origin: string,
      o: {
        credential?: SoftCredential;
        signCount?: number;
        userVerified?: boolean;
        rpId?: string;
        challenge?: string;
        withoutUserHandle?: boolean;
      } = {},
    ) {
      const rpId = o.rpId ?? options.rpId ?? new URL(origin).hostname;
      const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
      const credential =
        o.credential ?? credentials.find((c) => c.rpId === rpId && (allowed.length === 0 || allowed.includes(b64url(c.id))));
      if (!credential) throw new Error('no credential of this authenticator is allowed');
      credential.signCount = o.signCount ?? credential.signCount + 1;
      const clientDataJSON = Buffer.from(
        JSON.stringify({ type: 'webauthn.get', challenge: o.challenge ?? options.challenge, origin, crossOrigin: false }),
      );
      const authData = Buffer.concat([sha256(rpId), Buffer.from([flags(0, o)]), u32(credential.signCount)]);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
      return {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          ...(o.withoutUserHandle ? {} : { userHandle: credential.userHandle }),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform' as const,
      };
    },
    /** A copy of a credential (the same key), as an attacker who extracted it holds it: its own counter. */
    clone(credential: SoftCredential): SoftCredential {
      const copy = { ...credential };
      credentials.push(copy);
      return copy;
    },
  };
}
export type SoftAuthenticator = ReturnType<typeof softAuthenticator>;

/** The origin in-process FAPI calls come from (the fapi_url's, on PUBLIC_URL). */
export const TEST_ORIGIN = 'http://localhost:3000';

interface FapiCaller {
  call(method: string, path: string, o?: { body?: unknown }): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Registers a passkey of `authenticator` for the user signed in on `b`, over the FAPI; answers the passkey. */
export async function registerPasskeyOverFapi(b: FapiCaller, authenticator: SoftAuthenticator, o: { origin?: string; name?: string } = {}) {
  const prepared = await b.call('POST', '/v1/me/passkeys/prepare_registration');
  if (prepared.status !== 200) throw new Error(`prepare_registration: ${JSON.stringify(prepared.body)}`);
  const { response } = authenticator.register(prepared.body.options, o.origin ?? TEST_ORIGIN);
  const created = await b.call('POST', '/v1/me/passkeys', {
    body: { public_key_credential: response, ...(o.name ? { name: o.name } : {}) },
  });
  if (created.status !== 200) throw new Error(`register: ${JSON.stringify(created.body)}`);
  return created.body as { id: string; credential_id: string };
}

/** The WebAuthn request options a sign-in answer carries (first or second factor). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const passkeyOptionsOf = (answer: { body: any }, factor: 'first' | 'second' = 'first') =>
  JSON.parse(answer.body.response[factor === 'first' ? 'first_factor_verification' : 'second_factor_verification'].nonce) as RequestOptions;

/** A username-less passkey sign-in on `b`: the attempt's options answered by `authenticator`; answers the last response. */
export async function signInWithPasskey(
  b: FapiCaller,
  authenticator: SoftAuthenticator,
  o: Parameters<SoftAuthenticator['assert']>[2] & { origin?: string } = {},
) {
  const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
  if (started.status !== 200) return started;
  const credential = authenticator.assert(passkeyOptionsOf(started), o.origin ?? TEST_ORIGIN, o);
  return b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
    body: { strategy: 'passkey', public_key_credential: credential },
  });
}
