import { expect } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { sharedDirectory } from '../testing/scim';
import { USER_SCHEMA } from './discovery';
import { raceTest } from '../testing/races';

/**
 * A directory's first sync: an identity provider creates many users of one organization at
 * once. Each creation references the organization (foreign keys) before its membership takes
 * the organization's lock; the lock must not deadlock with those references (on PostgreSQL:
 * FOR NO KEY UPDATE, not FOR UPDATE).
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', SCIM_RATE_LIMIT: '100000' } });
const dir = sharedDirectory(h, 'Burst Co', 'Burst');

raceTest('creates 40 users at once, 10 in flight: every one 201 and a member, none refused', async () => {
  const total = 40;
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < total) {
        const n = ++next;
        const res = await dir.scim('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName: `burst${n}@burst.example.com`,
          name: { givenName: `Burst${n}`, familyName: 'Co' },
          active: true,
        });
        statuses.push(res.status);
      }
    }),
  );
  expect(statuses.filter((s) => s !== 201)).toEqual([]);
  const members = await h.call('GET', `/v1/organizations/${dir.orgId}/memberships?limit=100`, { key: dir.key });
  expect(members.status).toBe(200);
  expect(members.body.data).toHaveLength(total);
});
