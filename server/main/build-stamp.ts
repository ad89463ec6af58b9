import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a console build is made of: when any of it changes, `npm start` builds again. */
const SOURCE_DIRS = ['app', 'components', 'messages', 'server', 'emails'];
const SOURCE_FILES = ['next.config.ts', 'postcss.config.mjs', 'tsconfig.json', 'package-lock.json'];
const STAMP_FILE = path.join('.next', 'latchkey-source-stamp');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full);
    return /\.test\.tsx?$/.test(name) || name.endsWith('.snap') ? [] : [full];
  });
}

export function sourceStamp(root = process.cwd()): string {
  const hash = createHash('sha256');
  const files = [...SOURCE_DIRS.flatMap((d) => filesUnder(path.join(root, d))), ...SOURCE_FILES.map((f) => path.join(root, f))];
  for (const file of files.sort()) {
    if (!existsSync(file)) continue;
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** True when `.next` holds a build of exactly these sources. */
export function buildIsCurrent(root = process.cwd()): boolean {
  const stamp = path.join(root, STAMP_FILE);
  return existsSync(path.join(root, '.next', 'BUILD_ID')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceStamp(root);
}

export function writeStamp(root = process.cwd()): void {
  writeFileSync(path.join(root, STAMP_FILE), sourceStamp(root));
}

// `npm run build` records the stamp of what it built.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]) && process.argv.includes('--write')) {
  writeStamp();
}
