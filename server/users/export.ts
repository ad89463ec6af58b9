import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { AuditContext } from '../http/actor';
import type { ListUsersInput, UserView } from './schemas';
import { listUsers } from './users';

/** Users read per page while the export streams. */
const PAGE = 200;

const COLUMNS: Array<[string, (u: UserView) => string | number | boolean | null]> = [
  ['id', (u) => u.id],
  ['first_name', (u) => u.first_name],
  ['last_name', (u) => u.last_name],
  ['username', (u) => u.username],
  ['primary_email_address', (u) => u.email_addresses.find((e) => e.id === u.primary_email_address_id)?.email_address ?? null],
  ['email_verified', (u) => u.email_addresses.some((e) => e.verification?.status === 'verified')],
  ['primary_phone_number', (u) => u.phone_numbers.find((p) => p.id === u.primary_phone_number_id)?.phone_number ?? null],
  ['external_id', (u) => u.external_id],
  ['banned', (u) => u.banned],
  ['locked', (u) => u.locked],
  ['two_factor_enabled', (u) => u.two_factor_enabled],
  ['created_at', (u) => new Date(u.created_at).toISOString()],
  ['last_sign_in_at', (u) => (u.last_sign_in_at === null ? null : new Date(u.last_sign_in_at).toISOString())],
];

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break; a value a
 * spreadsheet would run as a formula (= + - @, tab, carriage return first) gets a leading `'`.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const line = (cells: string[]) => `${cells.join(',')}\r\n`;

/**
 * The filtered user list as CSV, written page by page as the client reads it (keyset
 * pagination, one page in memory at a time). The export itself is audited (`users.exported`).
 */
export async function exportUsersCsv(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  q: Omit<ListUsersInput, 'limit' | 'starting_after'>,
  ctx: AuditContext,
) {
  await audit(deps, {
    instanceId,
    actor: ctx.actor,
    actorKind: ctx.actorKind,
    action: 'users.exported',
    ip: ctx.ip,
    userAgent: ctx.userAgent,
    details: { filters: q },
  });
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(line(COLUMNS.map(([name]) => name))));
        return;
      }
      if (done) return controller.close();
      const page = await listUsers(deps, instanceId, { ...q, limit: PAGE, starting_after: cursor });
      if (page.data.length)
        controller.enqueue(encoder.encode(page.data.map((u) => line(COLUMNS.map(([, get]) => csvCell(get(u))))).join('')));
      cursor = page.data.at(-1)?.id;
      if (!page.has_more) done = true;
    },
  });
}
