import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { AuditContext } from '../http/actor';
import { getInstance } from '../instances/instances';
import { clerkApi } from './clerk-api';
import { readClerkExport } from './clerk-export';
import { importOrganizations, type OrganizationImportSummary } from './import-organizations';
import { importUsers, type UserImportSummary } from './import-users';

/**
 * `import clerk`: the users of a Clerk export file, then (with `fromApi`) the organizations
 * and memberships of Clerk's Backend API, into one instance. Running it again changes only
 * what differs; a run cut short continues where it stopped when run again.
 */
export interface ClerkImportRequest {
  instanceId: string;
  /** The export's text and name (the name tells JSON from CSV). */
  file?: { name: string; text: string };
  fromApi?: { url: string; secretKey: string };
  dryRun: boolean;
  events: boolean;
  audit: AuditContext;
  /** A line of progress (without its newline). */
  progress?: (line: string) => void;
}

export interface ClerkImportReport {
  object: 'clerk_import';
  instance_id: string;
  dry_run: boolean;
  format: 'csv' | 'json' | null;
  users: { read: number; created: number; updated: number; unchanged: number; skipped: number };
  organizations: OrganizationImportSummary['organizations'] | null;
  memberships: OrganizationImportSummary['memberships'] | null;
  roles_created: string[];
  skipped: { where: string; id: string; reason: string }[];
}

const tally = (s: { created: number; updated: number; unchanged: number }) =>
  `${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged`;

export async function runClerkImport(
  deps: Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>,
  req: ClerkImportRequest,
): Promise<ClerkImportReport> {
  const instance = await getInstance(deps, req.instanceId);
  const exported = req.file ? await readClerkExport(req.file.text, req.file.name) : null;
  let users: UserImportSummary = { created: 0, updated: 0, unchanged: 0, skipped: [] };
  if (exported) {
    const started = Date.now();
    users = await importUsers(deps, instance.id, exported.users, {
      dryRun: req.dryRun,
      events: req.events,
      onProgress: (done, total, s) =>
        req.progress?.(
          `users: ${done}/${total} (${tally(s)}, ${s.skipped.length} skipped) ${((Date.now() - started) / 1000).toFixed(1)} s`,
        ),
    });
  }
  const orgs = req.fromApi
    ? await importOrganizations(deps, instance.id, clerkApi(req.fromApi.url, req.fromApi.secretKey), {
        dryRun: req.dryRun,
        events: req.events,
        audit: req.audit,
        onProgress: (n, s) => req.progress?.(`organizations: ${n} read (${tally(s.organizations)}); memberships: ${tally(s.memberships)}`),
      })
    : null;
  const unreadable = (exported?.unreadable ?? []).map((u) => ({ where: u.where, id: '', reason: u.reason }));
  const report: ClerkImportReport = {
    object: 'clerk_import',
    instance_id: instance.id,
    dry_run: req.dryRun,
    format: exported?.format ?? null,
    users: {
      read: (exported?.users.length ?? 0) + unreadable.length,
      created: users.created,
      updated: users.updated,
      unchanged: users.unchanged,
      skipped: users.skipped.length + unreadable.length,
    },
    organizations: orgs?.organizations ?? null,
    memberships: orgs?.memberships ?? null,
    roles_created: orgs?.rolesCreated ?? [],
    skipped: [...unreadable, ...users.skipped, ...(orgs?.skipped ?? [])],
  };
  if (!req.dryRun) {
    const { skipped, ...counts } = report;
    await audit(deps, {
      instanceId: instance.id,
      actor: req.audit.actor,
      actorKind: req.audit.actorKind,
      action: 'clerk_import.completed',
      details: {
        ...counts,
        skipped: skipped.length,
        file: req.file?.name ?? null,
        from_api: req.fromApi ? new URL(req.fromApi.url).origin : null,
      },
    });
  }
  return report;
}

/** The report as the CLI prints it without --json. */
export function reportText(r: ClerkImportReport): string {
  const lines = [
    `Clerk import into ${r.instance_id}${r.dry_run ? ' (dry run: nothing was written; the counts say what a run would do)' : ''}`,
  ];
  if (r.format) lines.push(`  users:         ${r.users.read} read, ${tally(r.users)}, ${r.users.skipped} skipped`);
  if (r.organizations) lines.push(`  organizations: ${tally(r.organizations)}`);
  if (r.memberships) lines.push(`  memberships:   ${tally(r.memberships)}`);
  if (r.roles_created.length) lines.push(`  roles ${r.dry_run ? 'to create' : 'created'}: ${r.roles_created.join(', ')}`);
  if (r.skipped.length) {
    lines.push('Skipped:');
    for (const s of r.skipped) lines.push(`  ${s.where}${s.id ? ` ${s.id}` : ''}: ${s.reason}`);
  }
  return lines.join('\n');
}
