import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Every id prefix in use; ids are `<prefix>_<26 Crockford base32 chars>`, time-sortable. */
export type IdPrefix =
  | 'acct'
  | 'ins'
  | 'key'
  | 'user'
  | 'idn'
  | 'evt'
  | 'aud'
  | 'sess'
  | 'client'
  | 'org'
  | 'orgmem'
  | 'orginv'
  | 'orgdmn'
  | 'role'
  | 'perm'
  | 'whep'
  | 'msg'
  | 'oa'
  | 'req'
  | 'kid'
  | 'rt'
  | 'act'
  | 'sit'
  | 'sia'
  | 'sua'
  | 'ver'
  | 'pat'
  | 'orgsug'
  | 'orgmemreq'
  | 'acctmem'
  | 'acctinv'
  | 'setup'
  | 'email'
  | 'sms'
  | 'loc'
  | 'locrev'
  | 'msga'
  | 'acl'
  | 'scimtok'
  | 'scimgrp'
  | 'sif'
  | 'kdev'
  | 'ogr'
  | 'oaz'
  | 'apik'
  | 'plan'
  | 'sub'
  | 'ltip'
  | 'wle'
  | 'socp'
  | 'eac'
  | 'socf'
  | 'ssoc'
  | 'ssoa'
  | 'ssor'
  | 'ssot'
  | 'ptl'
  | 'inv'
  | 'passkey'
  | 'jtmp'
  | 'obl'
  | 'oiat';

/**
 * ulid's default source makes one getRandomValues call per character; drawing from a
 * refilled buffer of CSPRNG bytes is the same randomness at a fraction of the cost.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function randomFraction(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]! / 256;
}

const nextUlid = monotonicFactory(randomFraction);

export function newId<P extends IdPrefix>(prefix: P): `${P}_${string}` {
  return `${prefix}_${nextUlid()}`;
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
/** Clerk's ids: the prefix and 27 base62 characters (`user_2NNEqL2nrIRdJ194ndJqAHwEfxC`). */
const CLERK_ID_RE = /^[0-9A-Za-z]{27}$/;
/** Users and organizations imported from Clerk keep their ids (server/imports): ours or Clerk's format. */
const IMPORTED_ID_PREFIXES = ['user', 'org'] as const satisfies readonly IdPrefix[];

export function isId(prefix: IdPrefix, value: string): boolean {
  if (!value.startsWith(`${prefix}_`)) return false;
  const rest = value.slice(prefix.length + 1);
  return ULID_RE.test(rest) || ((IMPORTED_ID_PREFIXES as readonly string[]).includes(prefix) && CLERK_ID_RE.test(rest));
}
