import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { sharedDirectory } from '../testing/scim';
import { eventsOf } from '../testing/fapi-helpers';
import { USER_SCHEMA } from './discovery';

/**
 * Each directory's requests as it sends them (fixtures/README.md names the sources), replayed
 * in order: create, update, group push, deactivate. Then what a user and an admin see: the
 * Latchkey user's username, address, locale and unverified phones, the SCIM resource's
 * title, phones and addresses, the group's members, and the ban of a deactivated user.
 */
interface Fixture {
  directory: string;
  steps: { name: string; method: string; path: string; status: number; save?: string; body?: unknown }[];
  expect: {
    username: string | null;
    email: string;
    locale: string | null;
    phones: string[];
    title: string;
    locality: string | null;
    group: string;
  };
}

const dirPath = join(import.meta.dirname, 'fixtures');
const fixtures: Fixture[] = readdirSync(dirPath)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(dirPath, f), 'utf8')) as Fixture);

const h = sharedHarness();
const dir = sharedDirectory(h, 'Directories', 'Directory');
const fill = (v: unknown, ids: Record<string, string>): unknown =>
  JSON.parse(JSON.stringify(v).replace(/\{(\w+)\}/g, (m, k: string) => ids[k] ?? m));

describe('directories as they send requests', () => {
  it('has the four directories’ fixtures', () => {
    expect(fixtures.map((f) => f.directory).sort()).toEqual(['JumpCloud', 'Microsoft Entra ID', 'Okta', 'OneLogin']);
  });

  for (const f of fixtures) {
    it(`${f.directory}: create, update, group push and deactivate as it sends them`, async () => {
      const ids: Record<string, string> = {};
      for (const step of f.steps) {
        const res = await dir.scim(step.method, fill(step.path, ids) as string, step.body === undefined ? undefined : fill(step.body, ids));
        expect(res.status, `${step.name}: ${JSON.stringify(res.body)}`).toBe(step.status);
        if (step.save) ids[step.save] = res.body.id;
      }
      const user = await h.call('GET', `/v1/users/${ids.user}`, { key: dir.key });
      expect(user.status).toBe(200);
      expect(user.body.username).toBe(f.expect.username);
      const primary = user.body.email_addresses.find((e: { id: string }) => e.id === user.body.primary_email_address_id);
      expect(primary).toMatchObject({ email_address: f.expect.email, verification: { status: 'verified', strategy: 'scim' } });
      expect(user.body.email_addresses).toHaveLength(1);
      expect(user.body.locale).toBe(f.expect.locale);
      expect(user.body.phone_numbers.map((p: { phone_number: string }) => p.phone_number).sort()).toEqual([...f.expect.phones].sort());
      for (const p of user.body.phone_numbers) expect(p.verification.status).toBe('unverified');
      expect(user.body.primary_phone_number_id).toBeNull();
      // A directory that sends numbers with the create: webhook consumers hear of them in user.created.
      const createBody = f.steps.find((st) => st.method === 'POST' && st.path === '/Users')!.body as { phoneNumbers?: { value: string }[] };
      if (createBody.phoneNumbers?.length) {
        const created = (await eventsOf(h, dir.instanceId, 'user.created')).find((e) => e.data.id === ids.user)!;
        const told = created.data as { phone_numbers: { phone_number: string }[] };
        const sent = createBody.phoneNumbers.map((p) => p.value.replace(/[\s().-]/g, ''));
        expect(told.phone_numbers.map((p) => p.phone_number).sort()).toEqual(f.expect.phones.filter((p) => sent.includes(p)).sort());
      }

      const resource = await dir.scim('GET', `/Users/${ids.user}`);
      expect(resource.body).toMatchObject({ schemas: expect.arrayContaining([USER_SCHEMA]), title: f.expect.title, active: false });
      const sent = f.steps.find((s) => s.method === 'POST' && s.path === '/Users')!.body as Record<string, unknown>;
      expect(resource.body.userName).toBe(f.expect.username ?? sent.userName);
      const group = await dir.scim('GET', `/Groups/${ids.group}`);
      expect(group.body).toMatchObject({ displayName: f.expect.group, members: [expect.objectContaining({ value: ids.user })] });
      expect(resource.body.addresses?.[0]?.locality ?? null).toBe(f.expect.locality);
      // Deactivated: a user the directory created and that belongs nowhere else is banned.
      expect((await h.call('GET', `/v1/users/${ids.user}`, { key: dir.key })).body.banned).toBe(true);
    });
  }
});
