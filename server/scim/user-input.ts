import { z } from 'zod';
import type { ScimAddress, ScimEmail, ScimEnterprise, ScimPhone } from '../db/schema';
import { emailAddress } from '../email/addresses';
import { ENTERPRISE_SCHEMA } from './discovery';
import { invalidValue } from './errors';
import { getCaseless } from './filter';

/** A User as a directory sends it (POST, PUT, or the result of a PATCH), read case-insensitively. */
export interface ScimUserInput {
  /** Any identifier (RFC 7643 §4.1.1): an address, or a login such as `jdoe` or `CONTOSO\\jdoe`. */
  userName: string;
  /** userName, when it is an email address. */
  userNameAddress: string | null;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  emails: ScimEmail[];
  phoneNumbers: ScimPhone[];
  addresses: ScimAddress[];
  title: string | null;
  preferredLanguage: string | null;
  active: boolean;
  enterprise: ScimEnterprise;
}

const MAX_TEXT = 256;
const MAX_EMAILS = 20;
const MAX_ADDRESSES = 10;
const ADDRESS_PARTS = ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'] as const;

function text(obj: unknown, name: string, label = name): string | null {
  const v = getCaseless(obj, name.toLowerCase());
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw invalidValue(`${label} must be a string.`);
  const t = v.trim();
  if (t.length > MAX_TEXT) throw invalidValue(`${label} is at most ${MAX_TEXT} characters.`);
  return t || null;
}

/** Booleans, and Entra's strings for them ("True", "False"). */
function scimBoolean(v: unknown, label: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  throw invalidValue(`${label} must be true or false.`);
}

/** `emails` and `phoneNumbers`: value, type, primary, display. */
function valueList(v: unknown, label: 'emails' | 'phoneNumbers'): ScimEmail[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidValue(`${label} must be an array.`);
  if (v.length > MAX_EMAILS) throw invalidValue(`${label} holds at most ${MAX_EMAILS} values.`);
  return v.map((e, i) => {
    if (typeof e !== 'object' || e === null) throw invalidValue(`${label}[${i}] must be an object.`);
    const value = text(e, 'value', `${label}[${i}].value`);
    if (!value) throw invalidValue(`${label}[${i}].value is required.`);
    const type = text(e, 'type', `${label}[${i}].type`);
    const display = text(e, 'display', `${label}[${i}].display`);
    const primary = scimBoolean(getCaseless(e, 'primary'), `${label}[${i}].primary`);
    return { value, ...(type ? { type } : {}), ...(primary !== undefined ? { primary } : {}), ...(display ? { display } : {}) };
  });
}

function addressList(v: unknown): ScimAddress[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidValue('addresses must be an array.');
  if (v.length > MAX_ADDRESSES) throw invalidValue(`addresses holds at most ${MAX_ADDRESSES} addresses.`);
  return v.map((a, i) => {
    if (typeof a !== 'object' || a === null) throw invalidValue(`addresses[${i}] must be an object.`);
    const out: ScimAddress = {};
    for (const part of ADDRESS_PARTS) {
      const t = text(a, part, `addresses[${i}].${part}`);
      if (t) out[part] = t;
    }
    const primary = scimBoolean(getCaseless(a, 'primary'), `addresses[${i}].primary`);
    if (primary !== undefined) out.primary = primary;
    return out;
  });
}

function enterpriseOf(resource: unknown): ScimEnterprise {
  const ext = getCaseless(resource, ENTERPRISE_SCHEMA.toLowerCase());
  if (ext === undefined || ext === null) return {};
  if (typeof ext !== 'object') throw invalidValue(`${ENTERPRISE_SCHEMA} must be an object.`);
  const out: ScimEnterprise = {};
  const employeeNumber = text(ext, 'employeeNumber');
  const department = text(ext, 'department');
  if (employeeNumber) out.employeeNumber = employeeNumber;
  if (department) out.department = department;
  const manager = getCaseless(ext, 'manager');
  // Entra sets the manager as a bare id string.
  if (typeof manager === 'string' && manager.trim()) out.manager = { value: text({ v: manager }, 'v', 'manager')! };
  else if (typeof manager === 'object' && manager !== null) {
    const value = text(manager, 'value', 'manager.value');
    const displayName = text(manager, 'displayName', 'manager.displayName');
    if (value || displayName) out.manager = { ...(value ? { value } : {}), ...(displayName ? { displayName } : {}) };
  } else if (manager !== undefined && manager !== null && manager !== '') throw invalidValue('manager must be an object or an id.');
  return out;
}

/** Validates a User representation; problems are 400 invalidValue naming the attribute. */
export function parseUserInput(resource: unknown): ScimUserInput {
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) throw invalidValue('The body must be a User object.');
  const userName = text(resource, 'userName');
  if (!userName) throw invalidValue('userName is required.');
  const asAddress = emailAddress.safeParse(userName);
  const name = getCaseless(resource, 'name');
  if (name !== undefined && name !== null && typeof name !== 'object') throw invalidValue('name must be an object.');
  return {
    userName: asAddress.success ? asAddress.data : userName,
    userNameAddress: asAddress.success ? asAddress.data : null,
    externalId: text(resource, 'externalId'),
    givenName: text(name, 'givenName', 'name.givenName'),
    familyName: text(name, 'familyName', 'name.familyName'),
    displayName: text(resource, 'displayName'),
    emails: valueList(getCaseless(resource, 'emails'), 'emails'),
    phoneNumbers: valueList(getCaseless(resource, 'phonenumbers'), 'phoneNumbers'),
    addresses: addressList(getCaseless(resource, 'addresses')),
    title: text(resource, 'title'),
    preferredLanguage: text(resource, 'preferredLanguage'),
    active: scimBoolean(getCaseless(resource, 'active'), 'active') ?? true,
    enterprise: enterpriseOf(resource),
  };
}

/** Bodies are read by the parsers above; the router only needs an object. */
export const resourceBody = z.looseObject({});
