import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';

/**
 * A Clerk Dashboard user export (CSV) of `size` users, as the import tests and the import
 * benchmark read it. Computing a bcrypt digest per user would take minutes, so a few real
 * digests (cost 4) are shared; every tenth user has a TOTP secret, cells with several
 * addresses use each of Clerk's separators, and the bad rows come last with what the import
 * must say about them.
 */
export interface GeneratedExport {
  csv: string;
  /** Users that must be imported: id, primary email, password, TOTP secret (base32) if any. */
  users: { id: string; email: string; password: string; totpSecret: string | null; line: number }[];
  /** Rows that must be skipped: their line and a word of the reason. */
  bad: { line: number; reason: RegExp }[];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A Clerk-format user id: `user_2` and 26 base62 characters. */
export const clerkUserId = () => `user_2${Array.from(randomBytes(26), (b) => BASE62[b % 62]).join('')}`;
export const clerkOrgId = () => `org_2${Array.from(randomBytes(26), (b) => BASE62[b % 62]).join('')}`;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const totpSecret = () => Array.from(randomBytes(32), (b) => BASE32[b % 32]).join('');

const HEADER =
  'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher';

const quote = (cell: string) => (/[",\n\r]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);

export function generateClerkCsv(size: number, tag = randomBytes(3).toString('hex')): GeneratedExport {
  const passwords = ['first old password', 'second old password', 'third old password'];
  const digests = passwords.map((p) => bcrypt.hashSync(p, 4));
  const lines = [HEADER];
  const users: GeneratedExport['users'] = [];
  const separators = ['|', ',', ';'];
  // A first name with a comma and one across two lines: the CSV quoting must hold.
  const firstNames = ['Ada', 'Grace, Jr.', 'Line\nBreak', 'Zoë'];
  for (let i = 0; i < size; i++) {
    const id = clerkUserId();
    const email = `u${i}.${tag}@example.com`;
    const second = `alt${i}.${tag}@example.org`;
    const totp = i % 10 === 0 ? totpSecret() : null;
    const phone = i % 7 === 0 ? `+1415${String(1_000_000 + i).slice(-7)}` : '';
    const row = [
      id,
      firstNames[i % firstNames.length]!,
      `Last${i}`,
      i % 5 === 0 ? `user${i}_${tag}` : '',
      email,
      phone,
      // Primary and a second address, joined by each separator in turn.
      `${email}${separators[i % 3]}${second}`,
      i % 4 === 0 ? `pending${i}.${tag}@example.net` : '',
      phone,
      '',
      totp ?? '',
      digests[i % 3]!,
      'bcrypt',
    ];
    lines.push(row.map(quote).join(','));
    users.push({ id, email, password: passwords[i % 3]!, totpSecret: totp, line: 0 });
  }
  const badRows: { row: string[] | string; reason: RegExp }[] = [
    { row: ['usr_notclerk', 'Bad', 'Id', '', `badid.${tag}@example.com`, '', '', '', '', '', '', '', ''], reason: /not a Clerk user id/ },
    {
      row: [clerkUserId(), 'Fire', 'Base', '', `firebase.${tag}@example.com`, '', '', '', '', '', '', 'c2FsdA==', 'scrypt_firebase'],
      reason: /scrypt_firebase is not supported/,
    },
    { row: [clerkUserId(), 'Not', 'Mail', '', 'not-an-email', '', '', '', '', '', '', '', ''], reason: /valid email/ },
    { row: [clerkUserId(), 'Same', 'Mail', '', `u0.${tag}@example.com`, '', '', '', '', '', '', '', ''], reason: /same id, email address/ },
    {
      row: [clerkUserId(), 'Costly', 'Hash', '', `costly.${tag}@example.com`, '', '', '', '', '', '', `$2b$14$${'a'.repeat(53)}`, 'bcrypt'],
      reason: /costs more/,
    },
    { row: `${clerkUserId()},too,few,columns`, reason: /column|record/i },
  ];
  const bad: GeneratedExport['bad'] = [];
  for (const b of badRows) {
    lines.push(typeof b.row === 'string' ? b.row : b.row.map(quote).join(','));
    bad.push({ line: 0, reason: b.reason });
  }
  // Line numbers as the file has them (a quoted line break spans two).
  let line = 1;
  const records = lines.slice(1);
  records.forEach((r, i) => {
    line += r.split('\n').length;
    if (i < users.length) users[i]!.line = line;
    else bad[i - users.length]!.line = line;
  });
  return { csv: `${lines.join('\n')}\n`, users, bad };
}

/** The CLI as an operator runs it, in a child process of its own (node --import tsx, so a kill reaches it). */
export function cliProcess(env: Record<string, string>) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const children = new Set<ChildProcess>();
  return {
    run(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/index.ts', ...args], {
        cwd: root,
        env: { ...process.env, LOG_LEVEL: 'warn', ...env, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => (stderr += d));
      return new Promise((resolve) =>
        child.on('close', (code) => {
          children.delete(child);
          resolve({ code, stdout, stderr });
        }),
      );
    },
    killAll() {
      for (const c of children) c.kill('SIGKILL');
    },
  };
}
