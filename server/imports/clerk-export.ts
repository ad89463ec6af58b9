import type { Metadata } from '../db/schema/users';

/**
 * A Clerk user export read into one shape, whichever file it came from: the Dashboard's CSV
 * (one row per user) or a JSON array of Clerk user objects (the Backend API's `User`, as
 * `clerk` CLI exports and `@clerk/backend` serialise it). Only reading happens here: what a
 * user may be is checked by the import (server/imports/import-users.ts).
 */
export interface ExportedUser {
  /** Where the user is in the file, for the summary: `line 12` (CSV) or `entry 3` (JSON). */
  where: string;
  id: string;
  firstName: string | null;
  lastName: string | null;
  username: string | null;
  /** Primary first. */
  emails: { address: string; verified: boolean }[];
  phones: { number: string; verified: boolean }[];
  password: { digest: string; hasher: string } | null;
  totpSecret: string | null;
  /** The fields below come only with JSON exports: undefined from a CSV, so a re-import leaves them as they are. */
  externalId?: string | null;
  publicMetadata?: Metadata;
  privateMetadata?: Metadata;
  unsafeMetadata?: Metadata;
  banned?: boolean;
  /** Clerk's lockout after failed attempts: seconds left, null for no end; undefined when not locked. */
  lockedForSeconds?: number | null;
  createdAt: number | null;
  lastSignInAt: number | null;
}

/** A record of the file that could not be read as a user at all. */
interface UnreadableRecord {
  where: string;
  reason: string;
}

export interface ReadExport {
  format: 'csv' | 'json';
  users: ExportedUser[];
  unreadable: UnreadableRecord[];
}

/** The Dashboard export's columns; `id` is the one that must be there. */
const CSV_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'username',
  'primary_email_address',
  'primary_phone_number',
  'verified_email_addresses',
  'unverified_email_addresses',
  'verified_phone_numbers',
  'unverified_phone_numbers',
  'totp_secret',
  'password_digest',
  'password_hasher',
] as const;

export class ExportFormatError extends Error {}

/** JSON when the file name ends in .json or its first character opens an array or an object; CSV otherwise. */
export async function readClerkExport(text: string, fileName: string): Promise<ReadExport> {
  const body = text.replace(/^\uFEFF/, '');
  const json = /\.json$/i.test(fileName) || /^\s*[[{]/.test(body);
  // Loaded when a CSV is read: no other path of the server needs the parser.
  return json ? readJson(body) : readCsv(body, (await import('csv-parse/sync')).parse);
}

/** Several addresses or numbers in one cell: separated by `|`, `,` or `;`. */
const many = (cell: string | undefined) =>
  (cell ?? '')
    .split(/[|,;]/)
    .map((s) => s.trim())
    .filter(Boolean);
const orNull = (cell: string | undefined) => (cell?.trim() ? cell.trim() : null);

/** Each address once, primary first; verified unless only listed as unverified. */
function identifiers(primary: string | null, verified: string[], unverified: string[], key: (s: string) => string) {
  const out = new Map<string, { value: string; verified: boolean }>();
  const add = (value: string, isVerified: boolean) => {
    const k = key(value);
    const seen = out.get(k);
    if (seen) seen.verified ||= isVerified;
    else out.set(k, { value, verified: isVerified });
  };
  const unverifiedKeys = new Set(unverified.map(key));
  if (primary) add(primary, !unverifiedKeys.has(key(primary)) || verified.some((v) => key(v) === key(primary)));
  for (const v of verified) add(v, true);
  for (const v of unverified) add(v, false);
  return [...out.values()];
}

function readCsv(text: string, parseCsv: typeof import('csv-parse/sync').parse): ReadExport {
  const unreadable: UnreadableRecord[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      info: true,
      bom: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err: { lines?: number; message: string } | undefined) => {
        if (err) unreadable.push({ where: `line ${err.lines ?? '?'}`, reason: err.message });
      },
    });
  } catch (e) {
    throw new ExportFormatError(`The CSV file could not be read: ${(e as Error).message}`);
  }
  const first = records[0]?.record;
  if (first && !('id' in first))
    throw new ExportFormatError(`The CSV file has no id column (expected Clerk's columns: ${CSV_COLUMNS.join(', ')}).`);
  const users = records.map(({ record: r, info }) => {
    const lower = (s: string) => s.toLowerCase();
    const digest = orNull(r.password_digest);
    return {
      where: `line ${info.lines}`,
      id: (r.id ?? '').trim(),
      firstName: orNull(r.first_name),
      lastName: orNull(r.last_name),
      username: orNull(r.username),
      emails: identifiers(orNull(r.primary_email_address), many(r.verified_email_addresses), many(r.unverified_email_addresses), lower).map(
        (e) => ({
          address: e.value,
          verified: e.verified,
        }),
      ),
      phones: identifiers(orNull(r.primary_phone_number), many(r.verified_phone_numbers), many(r.unverified_phone_numbers), (s) => s).map(
        (p) => ({
          number: p.value,
          verified: p.verified,
        }),
      ),
      password: digest ? { digest, hasher: (r.password_hasher ?? '').trim() } : null,
      totpSecret: orNull(r.totp_secret),
      createdAt: null,
      lastSignInAt: null,
    };
  });
  return { format: 'csv', users, unreadable };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const millis = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : null);
const metadata = (v: unknown): Metadata => (isObject(v) ? v : {});

/** Clerk's identifier objects (`email_addresses`, `phone_numbers`): the primary first, verified when Clerk says so. */
function jsonIdentifiers(list: unknown, field: string, primaryId: unknown) {
  const items = (Array.isArray(list) ? list : []).filter(isObject);
  const sorted = [...items.filter((i) => i.id === primaryId), ...items.filter((i) => i.id !== primaryId)];
  return sorted
    .map((i) => ({ value: str(i[field]), verified: isObject(i.verification) && i.verification.status === 'verified' }))
    .filter((i): i is { value: string; verified: boolean } => i.value !== null);
}

function readJson(text: string): ReadExport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ExportFormatError(`The JSON file could not be read: ${(e as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : isObject(parsed) && Array.isArray(parsed.data) ? parsed.data : null;
  if (!list) throw new ExportFormatError('The JSON file is neither an array of Clerk users nor an object with one in "data".');
  const users: ExportedUser[] = [];
  const unreadable: UnreadableRecord[] = [];
  list.forEach((u: unknown, i) => {
    const where = `entry ${i + 1}`;
    if (!isObject(u)) return unreadable.push({ where, reason: 'not a user object' });
    const digest = str(u.password_digest);
    users.push({
      where,
      id: typeof u.id === 'string' ? u.id.trim() : '',
      firstName: str(u.first_name),
      lastName: str(u.last_name),
      username: str(u.username),
      emails: jsonIdentifiers(u.email_addresses, 'email_address', u.primary_email_address_id).map((e) => ({
        address: e.value,
        verified: e.verified,
      })),
      phones: jsonIdentifiers(u.phone_numbers, 'phone_number', u.primary_phone_number_id).map((p) => ({
        number: p.value,
        verified: p.verified,
      })),
      password: digest ? { digest, hasher: str(u.password_hasher) ?? '' } : null,
      totpSecret: str(u.totp_secret),
      externalId: str(u.external_id),
      publicMetadata: metadata(u.public_metadata),
      privateMetadata: metadata(u.private_metadata),
      unsafeMetadata: metadata(u.unsafe_metadata),
      banned: u.banned === true,
      lockedForSeconds:
        u.locked === true
          ? typeof u.lockout_expires_in_seconds === 'number'
            ? Math.max(0, u.lockout_expires_in_seconds)
            : null
          : undefined,
      createdAt: millis(u.created_at),
      lastSignInAt: millis(u.last_sign_in_at),
    });
  });
  return { format: 'json', users, unreadable };
}
