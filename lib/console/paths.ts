/** One place for the dashboard API's base path and the console's page URLs. */
const DASHBOARD = '/v1/dashboard';

export const api = {
  console: `${DASHBOARD}/console`,
  setup: `${DASHBOARD}/setup`,
  acceptInvitation: `${DASHBOARD}/invitations/accept`,
  me: `${DASHBOARD}/me`,
  accounts: `${DASHBOARD}/accounts`,
  account: (accountId: string) => `${DASHBOARD}/accounts/${encodeURIComponent(accountId)}`,
  instance: (accountId: string, instanceId: string) => `${api.account(accountId)}/instances/${encodeURIComponent(instanceId)}`,
};

/** Console page URLs (contracts the e2e tests use). */
export const pages = {
  home: '/',
  signIn: '/sign-in',
  account: (accountId: string) => `/accounts/${encodeURIComponent(accountId)}`,
  instance: (accountId: string, instanceId: string, section = '') =>
    `/accounts/${encodeURIComponent(accountId)}/instances/${encodeURIComponent(instanceId)}${section ? `/${section}` : ''}`,
  user: (accountId: string, instanceId: string, userId: string) =>
    `${pages.instance(accountId, instanceId, 'users')}/${encodeURIComponent(userId)}`,
};

/** `?a=1&b=2` from the defined, non-empty values (empty string when none). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const s = search.toString();
  return s ? `?${s}` : '';
}

/** A same-origin path to come back to, or `/` (never another site: no open redirect). */
export function safeReturnPath(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}

/** The console's sign-in page, coming back to where the browser is now. */
export function signInHref(): string {
  if (typeof window === 'undefined') return pages.signIn;
  const here = window.location.pathname + window.location.search;
  return `${pages.signIn}${query({ redirect_url: here === '/' ? undefined : here })}`;
}
