import { systemContext } from '../http/actor';
import { isNull } from 'drizzle-orm';
import { parseArgs } from 'node:util';
import type { Deps } from '../deps';
import { instances } from '../db/schema';
import { isAppError } from '../http/errors';
import { createInstance, defaultAccount, getInstance, instanceView, updateInstanceSettings } from '../instances/instances';
import { customDomainInput } from '../instances/custom-domain';
import { ensurePlatformInstance, issueSetupLink } from '../instances/platform';
import { createSecretKey, listSecretKeys, revokeSecretKey } from '../keys/secret-keys';
import { rotateSigningKeys } from '../signing/signing-keys';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reportText, runClerkImport } from '../imports/clerk-import';
import { ExportFormatError } from '../imports/clerk-export';
import { ClerkApiError } from '../imports/clerk-api';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const USAGE = `Usage: npm run cli -- <command>

  migrate                                   apply database migrations
  instance create --name NAME [--env test|live] [--account ACCOUNT_ID] [--json]
  instance list [--json]
  instance domain --instance ID --set DOMAIN|--clear [--json]   the instance's custom domain (its fapi_url becomes https://DOMAIN)
  keys create --instance ID --scopes a:read,b:write|* [--name NAME] [--json]
  keys list --instance ID [--json]
  keys revoke KEY_ID
  keys rotate-signing --instance ID [--json]  the next signing key starts signing; the current one retires
  setup-link [--json]                       a new one-time console setup link (creates an owner and an account; older links stop working)
  import clerk [FILE] --instance ID [--from-api] [--clerk-secret-key KEY] [--clerk-api-url URL] [--dry-run] [--no-events] [--json]
                                            users of a Clerk export (CSV or JSON) with their ids; with --from-api, organizations
                                            and memberships from Clerk's Backend API (key from CLERK_SECRET_KEY unless given)
`;

class UsageError extends Error {}

const ok = (stdout: string): CliResult => ({ exitCode: 0, stdout: stdout.endsWith('\n') ? stdout : `${stdout}\n`, stderr: '' });
const fail = (stderr: string, exitCode = 1): CliResult => ({ exitCode, stdout: '', stderr: `${stderr}\n` });

type Values = Record<string, string | boolean | undefined>;

/** What a command may use beyond its arguments: where progress goes, the caller's environment and directory. */
export interface CliIo {
  progress?: (line: string) => void;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

const DEFAULT_CLERK_API_URL = 'https://api.clerk.com';

const IMPORT_OPTIONS = {
  instance: { type: 'string' },
  'from-api': { type: 'boolean' },
  'clerk-secret-key': { type: 'string' },
  'clerk-api-url': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'no-events': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/**
 * The arguments a command sends to the server that holds the embedded store: that process has
 * neither our directory nor our environment, so the file's path is made absolute and the Clerk
 * secret key of our environment is passed along (in the request body over loopback, never a URL).
 */
export function argvForServer(argv: string[], io: Required<Pick<CliIo, 'env' | 'cwd'>>): string[] {
  if (argv[0] !== 'import') return argv;
  const [group, action, ...rest] = argv;
  const { values, positionals } = parse(rest, IMPORT_OPTIONS);
  const out = [group!, action!, ...rest.map((a) => (positionals.includes(a) ? path.resolve(io.cwd, a) : a))];
  if (values['from-api'] && values['clerk-secret-key'] === undefined && io.env.CLERK_SECRET_KEY)
    out.push('--clerk-secret-key', io.env.CLERK_SECRET_KEY);
  return out;
}

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const optionalString = (values: Values, name: string) => (typeof values[name] === 'string' ? values[name] : undefined);

function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required.`);
  return v;
}

const table = (rows: Record<string, unknown>[]) =>
  rows.length === 0
    ? '(none)'
    : rows
        .map((r) =>
          Object.values(r)
            .map((v) => (v === null ? '-' : String(v)))
            .join('  '),
        )
        .join('\n');

/** Every CLI command, over explicit deps: the CLI runs them directly, or through a running server. */
export async function runCommand(deps: Deps, argv: string[], io: CliIo = {}): Promise<CliResult> {
  const [group, action, ...rest] = argv;
  const actor = 'cli';
  const progressLines: string[] = [];
  try {
    if (group === 'migrate') return ok('Migrations are applied.');
    if (group === 'instance' && action === 'create') {
      const { values } = parse(rest, {
        name: { type: 'string' },
        env: { type: 'string' },
        account: { type: 'string' },
        json: { type: 'boolean' },
      });
      const env = optionalString(values, 'env') ?? 'test';
      if (env !== 'test' && env !== 'live') throw new UsageError('--env must be test or live.');
      const accountId = optionalString(values, 'account') ?? (await defaultAccount(deps)).id;
      const instance = await createInstance(deps, { accountId, name: required(values, 'name'), environment: env });
      const out = { instance_id: instance.id, publishable_key: instance.publishableKey, fapi_url: instance.fapiUrl };
      return ok(
        values.json
          ? JSON.stringify(out)
          : `Created ${env} instance ${instance.id}\n  publishable key: ${out.publishable_key}\n  FAPI URL:        ${out.fapi_url}`,
      );
    }
    if (group === 'instance' && action === 'list') {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      const rows = (await deps.db.select().from(instances).where(isNull(instances.deletedAt)).orderBy(instances.id)).map(instanceView);
      return ok(
        values.json
          ? JSON.stringify(rows)
          : table(rows.map((r) => ({ id: r.instance_id, env: r.environment, name: r.name, pk: r.publishable_key }))),
      );
    }
    if (group === 'instance' && action === 'domain') {
      const { values, positionals } = parse(rest, {
        instance: { type: 'string' },
        set: { type: 'string' },
        clear: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      const domain = optionalString(values, 'set');
      if (positionals.length > 0 || (domain === undefined) === !values.clear)
        throw new UsageError('instance domain takes --set DOMAIN or --clear.');
      const parsed = customDomainInput.safeParse(domain ?? null);
      if (!parsed.success) return fail(`Error: --set ${parsed.error.issues[0]!.message}`);
      const instanceId = required(values, 'instance');
      await updateInstanceSettings(deps, instanceId, { custom_domain: parsed.data }, { actor });
      const out = instanceView(await getInstance(deps, instanceId));
      return ok(
        values.json
          ? JSON.stringify(out)
          : `${out.instance_id}\n  custom domain:   ${out.custom_domain ?? '-'}\n  publishable key: ${out.publishable_key}\n  FAPI URL:        ${out.fapi_url}`,
      );
    }
    if (group === 'keys' && action === 'create') {
      const { values } = parse(rest, {
        instance: { type: 'string' },
        scopes: { type: 'string' },
        name: { type: 'string' },
        json: { type: 'boolean' },
      });
      const key = await createSecretKey(
        deps,
        {
          instanceId: required(values, 'instance'),
          scopes: required(values, 'scopes'),
          name: optionalString(values, 'name'),
        },
        systemContext(actor),
      );
      const out = { id: key.id, secret: key.secret, scopes: key.scopes };
      return ok(
        values.json ? JSON.stringify(out) : `Created key ${key.id} (${key.scopes.join(',')})\n  secret (shown once): ${key.secret}`,
      );
    }
    if (group === 'keys' && action === 'list') {
      const { values } = parse(rest, { instance: { type: 'string' }, json: { type: 'boolean' } });
      const instance = await getInstance(deps, required(values, 'instance'));
      const keys = await listSecretKeys(deps, instance.id);
      return ok(
        values.json
          ? JSON.stringify(keys)
          : table(keys.map((k) => ({ id: k.id, name: k.name, hint: `${k.hint}…`, scopes: k.scopes.join(','), revoked_at: k.revoked_at }))),
      );
    }
    if (group === 'keys' && action === 'revoke') {
      const { positionals, values } = parse(rest, { json: { type: 'boolean' } });
      if (positionals.length !== 1) throw new UsageError('keys revoke takes one KEY_ID.');
      const out = await revokeSecretKey(deps, positionals[0]!, systemContext(actor));
      return ok(values.json ? JSON.stringify(out) : `Revoked key ${out.id}`);
    }
    if (group === 'keys' && action === 'rotate-signing') {
      const { values, positionals } = parse(rest, { instance: { type: 'string' }, json: { type: 'boolean' } });
      if (positionals.length > 0) throw new UsageError('keys rotate-signing takes no positional arguments.');
      const instance = await getInstance(deps, required(values, 'instance'));
      const out = { object: 'signing_key_rotation' as const, ...(await rotateSigningKeys(deps, instance.id, systemContext(actor))) };
      return ok(
        values.json
          ? JSON.stringify(out)
          : `Rotated signing keys of ${instance.id}\n  signing now: ${out.current}\n  next:        ${out.next}\n  retired:     ${out.retired ?? '-'}`,
      );
    }
    if (group === 'setup-link') {
      const { values, positionals } = parse(
        [action, ...rest].filter((a): a is string => a !== undefined),
        { json: { type: 'boolean' } },
      );
      if (positionals.length > 0) throw new UsageError('setup-link takes no positional arguments.');
      await ensurePlatformInstance(deps);
      const { url } = await issueSetupLink(deps, actor);
      return ok(values.json ? JSON.stringify({ url }) : `Console setup link (works once):\n  ${url}`);
    }
    if (group === 'import' && action === 'clerk') {
      const { values, positionals } = parse(rest, IMPORT_OPTIONS);
      if (positionals.length > 1) throw new UsageError('import clerk takes one export FILE.');
      const fromApi = values['from-api'] === true;
      if (positionals.length === 0 && !fromApi) throw new UsageError('import clerk needs an export FILE, --from-api, or both.');
      const secretKey = optionalString(values, 'clerk-secret-key') ?? io.env?.CLERK_SECRET_KEY;
      if (fromApi && !secretKey)
        throw new UsageError('--from-api needs a Clerk secret key: set CLERK_SECRET_KEY or pass --clerk-secret-key.');
      const fileName = positionals[0];
      let file: { name: string; text: string } | undefined;
      if (fileName !== undefined) {
        try {
          file = { name: path.basename(fileName), text: readFileSync(path.resolve(io.cwd ?? process.cwd(), fileName), 'utf8') };
        } catch (e) {
          return fail(`Error: ${fileName} could not be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
      }
      const progress = io.progress ?? ((line: string) => progressLines.push(line));
      const report = await runClerkImport(deps, {
        instanceId: required(values, 'instance'),
        file,
        fromApi: fromApi ? { url: optionalString(values, 'clerk-api-url') ?? DEFAULT_CLERK_API_URL, secretKey: secretKey! } : undefined,
        dryRun: values['dry-run'] === true,
        events: values['no-events'] !== true,
        audit: systemContext(actor),
        progress,
      });
      const result = ok(values.json ? JSON.stringify(report) : reportText(report));
      return { ...result, stderr: progressLines.map((l) => `${l}\n`).join('') };
    }
    if (group === undefined || group === 'help' || group === '--help') return ok(USAGE);
    throw new UsageError(`Unknown command: ${argv.join(' ')}`);
  } catch (e) {
    if (e instanceof UsageError) return fail(`${e.message}\n\n${USAGE}`, 2);
    if (isAppError(e)) return fail(`Error: ${e.message}${e.meta.param ? ` (${String(e.meta.param)})` : ''}`);
    if (e instanceof ExportFormatError || e instanceof ClerkApiError)
      return fail(`${progressLines.map((l) => `${l}\n`).join('')}Error: ${e.message}`);
    throw e;
  }
}
