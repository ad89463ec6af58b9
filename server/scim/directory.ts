import type { AuditContext } from '../http/actor';
import { AppError } from '../http/errors';
import { scimError } from './errors';

/** The organization a SCIM token speaks for, and how its changes are audited. */
export interface Directory {
  instanceId: string;
  organizationId: string;
  /** `{PUBLIC_URL}/scim/v2`, for `meta.location`. */
  baseUrl: string;
  audit: AuditContext;
  /** The request's If-Match header, checked against `meta.version` before a change. */
  ifMatch: string | null;
}

export const etagOf = (version: number) => `W/"${version}"`;

/** 412 when If-Match names another version (`*` matches any). */
export function checkIfMatch(dir: Directory, version: number) {
  if (dir.ifMatch === null) return;
  const tags = dir.ifMatch.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.some((t) => t.replace(/^W\//, '') === `"${version}"`)) return;
  throw scimError('PRECONDITION_FAILED', null, `The resource is at version ${etagOf(version)}; re-read it and retry.`);
}

export const isoTime = (ms: number) => new Date(ms).toISOString();

export const scimNotFound = (what: 'User' | 'Group') =>
  new AppError('NOT_FOUND', { message: `No ${what} with that id in this directory.` });
