import { bootstrapConsole } from '../instances/bootstrap';
import { findPlatformInstance } from '../instances/platform';
import type { TestHarness } from './harness';

const CONSOLE_ORIGIN = 'http://localhost:3000';

export interface ConsoleCallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** `Origin` sent on writes; default the console's own; null sends none. */
  origin?: string | null;
}

export interface ConsoleResult {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  setCookie: string | null;
}

/**
 * A browser on the console: keeps the `__console_client` cookie (Path=/) as a browser
 * would, sends it to the dashboard API (`dash`) and to the platform instance's FAPI
 * (`fapi`), and sends the console's Origin on writes.
 */
export function consoleBrowser(h: TestHarness, platform: { id: string; publishableKey: string }) {
  const state = { cookie: null as string | null };

  async function send(method: string, url: string, o: ConsoleCallOptions, extra: Record<string, string> = {}): Promise<ConsoleResult> {
    const headers: Record<string, string> = { ...extra, ...o.headers };
    const origin = o.origin === undefined ? CONSOLE_ORIGIN : o.origin;
    if (method !== 'GET' && origin !== null) headers.origin ??= origin;
    if (state.cookie !== null) headers.cookie ??= `__console_client=${state.cookie}`;
    const res = await h.request(method, url, { headers, body: o.body });
    const setCookie = res.headers.get('set-cookie');
    const m = setCookie ? /^__console_client=([^;]*);/.exec(setCookie) : null;
    if (m) state.cookie = /Max-Age=0(;|$)/.test(setCookie!) ? null : m[1]!;
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, setCookie };
  }

  return {
    dash: (method: string, path: string, o: ConsoleCallOptions = {}) => send(method, `/v1/dashboard${path}`, o),
    fapi: (method: string, path: string, o: ConsoleCallOptions = {}) =>
      send(method, `/fapi/${platform.id}${path}`, o, { 'x-publishable-key': platform.publishableKey }),
    get cookie() {
      return state.cookie;
    },
    set cookie(v: string | null) {
      state.cookie = v;
    },
  };
}
export type ConsoleBrowser = ReturnType<typeof consoleBrowser>;

/** Bootstraps the console as a first start does: the platform instance and a setup token. */
export async function consoleSetupToken(h: TestHarness) {
  const url = await bootstrapConsole(h.runtime.deps);
  const platform = (await findPlatformInstance(h.runtime.deps))!;
  return {
    token: url ? new URL(url).searchParams.get('token') : null,
    url,
    platform: { id: platform.id, publishableKey: platform.publishableKey },
  };
}

/** A claimed console: the first operator (owner), signed in, and their account. */
export async function claimedConsole(h: TestHarness, email = 'owner@example.com', password = 'correct horse battery') {
  const { token, platform } = await consoleSetupToken(h);
  const b = consoleBrowser(h, platform);
  const res = await b.dash('POST', '/setup', { body: { token, email_address: email, password, first_name: 'Olive' } });
  if (res.status !== 201) throw new Error(`setup failed: ${JSON.stringify(res.body)}`);
  return { b, platform, operator: res.body.user, accountId: res.body.accounts[0].id as string, password };
}

/** A viewer of `owner`'s account: invited by email, the invitation accepted in a browser of their own. */
export async function invitedViewer(h: TestHarness, owner: Awaited<ReturnType<typeof claimedConsole>>, email = 'vic@example.com') {
  await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, { body: { email_address: email, role: 'viewer' } });
  const token = new URL(String((await h.outbox(email))[0]!.data.url)).searchParams.get('token')!;
  const viewer = consoleBrowser(h, owner.platform);
  const accepted = await viewer.dash('POST', '/invitations/accept', { body: { token, password: 'viewer passphrase' } });
  if (accepted.status !== 200) throw new Error(`accepting the invitation failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return viewer;
}

/** A claimed console's new instance: its id, its dashboard path (`base`) and a `*` secret key of it. */
export async function consoleInstance(owner: Awaited<ReturnType<typeof claimedConsole>>, name = 'Shop') {
  const instance = (await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name } })).body as { id: string };
  const base = `/accounts/${owner.accountId}/instances/${instance.id}`;
  const secret = (await owner.b.dash('POST', `${base}/keys`, { body: { name: 'backend', scopes: ['*'] } })).body.secret as string;
  return { id: instance.id, base, secret };
}
