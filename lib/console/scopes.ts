/**
 * Resources a secret key's scopes name (`resource:read` / `resource:write`). A plain
 * constant shared with the server's scope check (server/keys/scopes.ts holds no data
 * access), so the checklist always matches what the API accepts.
 */
export { SCOPE_RESOURCES } from '../../server/keys/scopes';
