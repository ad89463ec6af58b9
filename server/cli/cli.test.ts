import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { runCommand } from './commands';

describe('CLI commands', () => {
  const h = sharedHarness();

  it('creates an instance and a scoped key, printing JSON', async () => {
    const created = await runCommand(h.runtime.deps, ['instance', 'create', '--name', 'Shop', '--env', 'live', '--json']);
    expect(created.exitCode).toBe(0);
    const instance = JSON.parse(created.stdout);
    expect(Object.keys(instance).sort()).toEqual(['fapi_url', 'instance_id', 'publishable_key']);
    expect(instance.publishable_key).toMatch(/^pk_live_/);
    expect(Buffer.from(instance.publishable_key.slice(8), 'base64url').toString()).toBe(
      `${instance.fapi_url.replace(/^https?:\/\//, '')}$`,
    );

    const key = await runCommand(h.runtime.deps, [
      'keys',
      'create',
      '--instance',
      instance.instance_id,
      '--scopes',
      'users:read,users:write',
      '--name',
      'svc',
      '--json',
    ]);
    expect(key.exitCode).toBe(0);
    const parsed = JSON.parse(key.stdout);
    expect(parsed).toEqual({
      id: expect.stringMatching(/^key_/),
      secret: expect.stringMatching(/^sk_live_/),
      scopes: ['users:read', 'users:write'],
    });
    expect((await h.call('GET', '/v1/users', { key: parsed.secret })).status).toBe(200);

    const revoked = await runCommand(h.runtime.deps, ['keys', 'revoke', parsed.id]);
    expect(revoked.exitCode).toBe(0);
    expect((await h.call('GET', '/v1/users', { key: parsed.secret })).body.errors[0].code).toBe('INVALID_KEY');
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    const { instanceId } = await h.createInstance();
    expect((await runCommand(h.runtime.deps, ['keys', 'create', '--instance', instanceId, '--scopes', 'users:admin'])).exitCode).toBe(1);
    expect((await runCommand(h.runtime.deps, ['keys', 'create', '--instance', 'ins_nope', '--scopes', '*'])).exitCode).toBe(1);
    expect((await runCommand(h.runtime.deps, ['instance', 'create'])).exitCode).toBe(2);
    expect((await runCommand(h.runtime.deps, ['instance', 'create', '--name', 'x', '--env', 'prod'])).exitCode).toBe(2);
    expect((await runCommand(h.runtime.deps, ['keys', 'revoke', 'key_nope'])).stderr).toMatch(/no secret key was found/i);
    expect((await runCommand(h.runtime.deps, ['frobnicate'])).exitCode).toBe(2);
  });

  it('rotates an instance’s signing keys: the published next key starts signing', async () => {
    const { instanceId, secret } = await h.createInstance();
    const jwks = async () => (await h.call('GET', '/v1/jwks', { key: secret })).body.keys.map((k: { kid: string }) => k.kid);
    const [current, next] = await jwks();

    const rotated = await runCommand(h.runtime.deps, ['keys', 'rotate-signing', '--instance', instanceId, '--json']);
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    const out = JSON.parse(rotated.stdout);
    expect(out).toEqual({ object: 'signing_key_rotation', current: next, next: expect.stringMatching(/^kid_/), retired: current });
    expect(await jwks()).toEqual([next, out.next, current]);
    const audited = await h.call('GET', `/v1/audit_logs?action=signing_key.rotated`, { key: secret });
    expect(audited.body.data).toEqual([
      expect.objectContaining({ actor: 'cli', target: next, details: { retired: current, next: out.next } }),
    ]);

    const text = await runCommand(h.runtime.deps, ['keys', 'rotate-signing', '--instance', instanceId]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(`Rotated signing keys of ${instanceId}`);
    expect(text.stdout).toContain(out.next);
    expect(text.stdout.endsWith('\n')).toBe(true);
  });

  it('rotate-signing refuses a missing or unknown instance', async () => {
    const missing = await runCommand(h.runtime.deps, ['keys', 'rotate-signing']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--instance is required.');
    expect(missing.stderr).toContain('keys rotate-signing --instance ID');
    const unknown = await runCommand(h.runtime.deps, ['keys', 'rotate-signing', '--instance', 'ins_nope']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no instance was found/i);
    expect((await runCommand(h.runtime.deps, ['keys', 'rotate-signing', '--instance', 'ins_nope', '--bogus'])).exitCode).toBe(2);
    expect((await runCommand(h.runtime.deps, ['help'])).stdout).toContain('keys rotate-signing --instance ID [--json]');
  });
});

describe('CLI with the embedded store, as an operator runs it', () => {
  const root = path.resolve(__dirname, '../..');
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'latchkey-cli-'));
  const port = 41000 + Math.floor(Math.random() * 2000);
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '' };
  const cli = (...args: string[]) => spawnSync(tsx, ['server/cli/index.ts', ...args], { cwd: root, env, encoding: 'utf8' });
  let running: ReturnType<typeof spawn> | null = null;
  // Also when the test times out: its `finally` may never run, and the server would outlive the run.
  afterAll(() => {
    if (running?.exitCode === null && running.signalCode === null) process.kill(-running.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('works directly, then through a running server, and the data survives a restart', async () => {
    const direct = cli('instance', 'create', '--name', 'Direct', '--json');
    expect(direct.status, direct.stderr).toBe(0);
    const instance = JSON.parse(direct.stdout);

    const server = spawn(tsx, ['server/main/api.ts'], { cwd: root, env, stdio: 'ignore', detached: true });
    running = server;
    try {
      await waitFor(`http://127.0.0.1:${port}/readyz`);
      // The server holds the store: the CLI works through it instead of opening it twice.
      const viaServer = cli('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json');
      expect(viaServer.status, viaServer.stderr).toBe(0);
      const { secret } = JSON.parse(viaServer.stdout);
      const res = await fetch(`http://127.0.0.1:${port}/v1/users`, { headers: { authorization: `Bearer ${secret}` } });
      expect(res.status).toBe(200);
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
      await new Promise((r) => server.on('exit', r));
    }
    const listed = cli('instance', 'list', '--json');
    expect(listed.status, listed.stderr).toBe(0);
    const ids = JSON.parse(listed.stdout).map((i: { instance_id: string }) => i.instance_id);
    expect(ids).toContain(instance.instance_id);
  }, 90_000); // starts a real server on an on-disk store
});

async function waitFor(url: string) {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became ready`);
}
