import { beforeAll } from 'vitest';
import type { TestHarness } from './harness';

/** An instance with one organization and a SCIM token for its directory, as a provisioning client test starts. */
export async function createDirectory(h: TestHarness, organizationName: string, tokenName: string) {
  const { secret: key, instanceId } = await h.createInstance();
  const orgId: string = (await h.call('POST', '/v1/organizations', { key, body: { name: organizationName } })).body.id;
  const token: string = (await h.call('POST', '/v1/scim_tokens', { key, body: { organization_id: orgId, name: tokenName } })).body.token;
  return { key, instanceId, orgId, token };
}

/** A SCIM client's request to `/scim/v2…`: the directory's bearer token, an application/scim+json body. */
export const scimCaller =
  (h: () => TestHarness, token: () => string) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    h().call(method, `/scim/v2${path}`, {
      key: token(),
      ...(body === undefined ? {} : { raw: JSON.stringify(body) }),
      headers: { 'content-type': 'application/scim+json', ...headers },
    });

/** createDirectory in beforeAll of a shared harness (sharedHarness), with its SCIM caller. */
export function sharedDirectory(h: TestHarness, organizationName: string, tokenName: string) {
  let created: Awaited<ReturnType<typeof createDirectory>> | undefined;
  beforeAll(async () => {
    created = await createDirectory(h, organizationName, tokenName);
  });
  const d = () => created ?? notOpenYet();
  return {
    get key() {
      return d().key;
    },
    get instanceId() {
      return d().instanceId;
    },
    get orgId() {
      return d().orgId;
    },
    scim: scimCaller(
      () => h,
      () => d().token,
    ),
  };
}

const notOpenYet = (): never => {
  throw new Error('The directory is created in beforeAll: use it inside a test.');
};
