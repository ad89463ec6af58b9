import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../http/errors';

/**
 * Clerk's browser bundles, `@clerk/clerk-js` and `@clerk/ui`, served from the npm packages
 * installed with Latchkey (pinned in package.json: nothing is downloaded at run time) at the
 * paths Clerk's SDKs load them from: `{fapi_url}/npm/@clerk/clerk-js@6/dist/clerk.browser.js`
 * and `{fapi_url}/npm/@clerk/ui@1/dist/ui.browser.js`. Each bundle fetches its chunks from
 * its own exact version's folder (`…/@clerk/clerk-js@6.40.0/dist/<chunk>.js`), so those are
 * served too: any file directly in the package's `dist/` with a served type.
 */
const BUNDLE_PACKAGES = { 'clerk-js': '@clerk/clerk-js', ui: '@clerk/ui' } as const;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** A version named exactly is immutable; a range (`6`, `6.40`, `latest`) may move with an upgrade. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const RANGE = 'public, max-age=300';

interface InstalledPackage {
  version: string;
  dist: string;
  /** The servable files directly in dist/: only these names are ever read. */
  files: ReadonlySet<string>;
}

// Anchored at the application's root (as the migrations and catalogs are), so it resolves the same way bundled or not.
const requireFromRoot = createRequire(path.resolve(process.cwd(), 'package.json'));
const installed = new Map<string, Promise<InstalledPackage>>();
const etags = new Map<string, string>();

async function readInstalled(name: string): Promise<InstalledPackage> {
  // Both packages' main entry lives in dist/; their package.json is not exported.
  const dist = path.dirname(requireFromRoot.resolve(name));
  const pkg = JSON.parse(await readFile(path.join(dist, '..', 'package.json'), 'utf8')) as { name: string; version: string };
  if (pkg.name !== name || path.basename(dist) !== 'dist')
    throw new Error(`${name} is not installed as expected (found ${pkg.name} at ${dist})`);
  const entries = await readdir(dist, { withFileTypes: true });
  const files = new Set(entries.filter((e) => e.isFile() && path.extname(e.name) in CONTENT_TYPES).map((e) => e.name));
  return { version: pkg.version, dist, files };
}

function installedPackage(name: string): Promise<InstalledPackage> {
  let found = installed.get(name);
  if (!found) {
    found = readInstalled(name);
    found.catch(() => installed.delete(name));
    installed.set(name, found);
  }
  return found;
}

/**
 * Whether `spec` (the URL's `@…`) names the installed version: the exact version, its
 * major (`6`), its major.minor (`6.40`) or `latest`; null when it does not (a tag such as
 * `beta`, another version).
 */
export function matchVersion(spec: string, version: string): 'exact' | 'range' | null {
  if (spec === version) return 'exact';
  if (spec === 'latest') return 'range';
  const [major, minor] = version.split('.');
  return spec === major || spec === `${major}.${minor}` ? 'range' : null;
}

const notFound = () => new AppError('NOT_FOUND', { message: 'No such file in the bundles this server has installed.' });

/** `clerk-js@6` → its package and version spec; no `@…` means the latest. */
function parsePackageSegment(segment: string): { served: keyof typeof BUNDLE_PACKAGES; spec: string } | null {
  const at = segment.indexOf('@');
  const name = at < 0 ? segment : segment.slice(0, at);
  if (!Object.hasOwn(BUNDLE_PACKAGES, name)) return null;
  return { served: name as keyof typeof BUNDLE_PACKAGES, spec: at < 0 ? 'latest' : segment.slice(at + 1) };
}

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);

export interface BundleFile {
  /** Null on a matching If-None-Match (304). */
  bytes: Uint8Array | null;
  contentType: string;
  headers: Record<string, string>;
}

/**
 * One file of a served package's dist/: `packageSegment` as the URL has it (`clerk-js@6`),
 * `file` a bare name. 404 for another package, a version the installed one does not satisfy,
 * or a name that is not one of the files listed in dist/ (no path is ever built from input
 * that is not in that list).
 */
export async function clerkBundleFile(packageSegment: string, file: string, ifNoneMatch?: string): Promise<BundleFile> {
  const parsed = parsePackageSegment(packageSegment);
  if (!parsed) throw notFound();
  const pkg = await installedPackage(BUNDLE_PACKAGES[parsed.served]);
  const match = matchVersion(parsed.spec, pkg.version);
  if (!match || !pkg.files.has(file)) throw notFound();
  const full = path.join(pkg.dist, file);
  let etag = etags.get(full);
  let bytes: Uint8Array | null = null;
  if (!etag || !matchesEtag(ifNoneMatch, etag)) {
    bytes = await readFile(full);
    etag ??= `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
    etags.set(full, etag);
  }
  const headers = {
    'cache-control': match === 'exact' ? IMMUTABLE : RANGE,
    etag,
    // Clerk's CDN answers any origin: apps load these scripts cross-origin (crossorigin="anonymous").
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
  };
  return { bytes: matchesEtag(ifNoneMatch, etag) ? null : bytes, contentType: CONTENT_TYPES[path.extname(file)]!, headers };
}
