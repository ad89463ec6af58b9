import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, consoleInstance, invitedViewer } from '../testing/console-client';
import { createHarness, type TestHarness } from '../testing/harness';
import { csvCell } from './export';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  ({ base } = await consoleInstance(owner, 'Export'));
});
afterAll(() => h.close());

describe('dashboard users: create and export', () => {
  it('an admin creates users; the export streams the filtered list as CSV, escaped, and is audited', async () => {
    const created = await owner.b.dash('POST', `${base}/users`, {
      body: { email_address: ['ada@example.com'], first_name: 'Ada', last_name: 'Lovelace', password: 'a strong passphrase 1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ object: 'user', first_name: 'Ada', password_enabled: true });
    const tricky = await owner.b.dash('POST', `${base}/users`, {
      body: { email_address: ['eve@example.com'], first_name: '=HYPERLINK("x")', last_name: 'Doe, "Jr"' },
    });
    expect(tricky.status).toBe(200);
    for (let i = 0; i < 250; i++) await owner.b.dash('POST', `${base}/users`, { body: { username: `bulk_${i}` } });
    await owner.b.dash('POST', `${base}/users/${tricky.body.id}/ban`);

    const all = await h.request('GET', `/v1/dashboard${base}/users/export.csv`, {
      headers: { cookie: `__console_client=${owner.b.cookie}` },
    });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.headers.get('content-disposition')).toMatch(/^attachment; filename="users-ins_/);
    const lines = (await all.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,first_name,last_name,username,primary_email_address,email_verified,primary_phone_number,external_id,banned,locked,two_factor_enabled,created_at,last_sign_in_at',
    );
    expect(lines).toHaveLength(1 + 252);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(252);

    const banned = (
      await (
        await h.request('GET', `/v1/dashboard${base}/users/export.csv?banned=true`, {
          headers: { cookie: `__console_client=${owner.b.cookie}` },
        })
      ).text()
    )
      .trimEnd()
      .split('\r\n');
    expect(banned).toHaveLength(2);
    expect(banned[1]).toContain(`${tricky.body.id},"'=HYPERLINK(""x"")","Doe, ""Jr""",,eve@example.com,true,,,true,false,false,`);
    expect((await owner.b.dash('GET', `${base}/audit_logs?action=users.exported`)).body.data).toHaveLength(2);
  });

  it('is for admins: a viewer may neither export nor create', async () => {
    const viewer = await invitedViewer(h, owner);
    expect(
      (await h.request('GET', `/v1/dashboard${base}/users/export.csv`, { headers: { cookie: `__console_client=${viewer.cookie}` } }))
        .status,
    ).toBe(403);
    expect((await viewer.dash('POST', `${base}/users`, { body: { username: 'nope_1' } })).status).toBe(403);
    expect((await owner.b.dash('GET', `${base}/users/export.csv?banned=maybe`)).status).toBe(422);
  });

  it('escapes cells as RFC 4180 and defuses formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell('@cmd')).toBe("'@cmd");
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
  });
});
