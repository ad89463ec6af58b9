import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let key: string;
beforeAll(async () => {
  h = await createHarness();
  ({ secret: key } = await h.createInstance());
});
afterAll(() => h.close());

describe('users', () => {
  it('creates and fetches a user', async () => {
    const created = await h.call('POST', '/v1/users', { key, body: { email_address: ['Ada@Example.com'], first_name: 'Ada', password: 'correct horse battery' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'user', first_name: 'Ada', password_enabled: true });
    const got = await h.call('GET', `/v1/users/${created.body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.email_addresses[0].email_address).toBe('Ada@Example.com');
  });
});
