import { readFileSync } from 'node:fs';

/**
 * Summarises a V8 .cpuprofile (from `BENCH_CPU_PROF=dir npm run bench`):
 *   node --import tsx bench/profile-summary.ts dir/CPU.*.cpuprofile [top] [from-seconds]
 * Prints self time by function, by file/package, and inclusive time of selected frames.
 * A negative from-seconds counts back from the profile's end: `-10` keeps its last 10 s (a
 * one-row run of BENCH_DURATION=6 ends with its measured rounds, then idles until stopped).
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const out = (line: string) => void process.stdout.write(`${line}\n`);
const file = process.argv[2];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [from-seconds]');
const top = Number(process.argv[3] ?? 30);
/** Samples before this many seconds into the profile (start-up, module loading) are left out. */
const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const from = Number(process.argv[4] ?? 0);
const fromMicros = from < 0 ? prof.timeDeltas.reduce((a, b) => a + b, 0) + from * 1e6 : from * 1e6;

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfTime = new Map<number, number>();
let at = 0;
prof.samples.forEach((id, i) => {
  at += prof.timeDeltas[i] ?? 0;
  if (at < fromMicros) return;
  selfTime.set(id, (selfTime.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const idle = [...selfTime]
  .filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName))
  .reduce((a, [, t]) => a + t, 0);
process.stdout.on('error', () => process.exit(0)); // e.g. piped into head

const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'nm:')
    .replace(/^\/work\/main\//, '') || '(native)';
const frameKey = (n: Node) => `${n.callFrame.functionName || '(anonymous)'}  ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const pkg = (n: Node) => {
  const s = short(n.callFrame.url);
  if (s.startsWith('nm:'))
    return s
      .split('/')
      .slice(0, s.startsWith('nm:@') ? 2 : 1)
      .join('/');
  if (s.startsWith('node:')) return s;
  return s === '(native)' ? `(${n.callFrame.functionName})` : s;
};

const isIdle = (n: Node) => ['(idle)', '(program)'].includes(n.callFrame.functionName);
const group = (key: (n: Node) => string) => {
  const m = new Map<string, number>();
  for (const [id, t] of selfTime) {
    const n = byId.get(id)!;
    if (!isIdle(n)) m.set(key(n), (m.get(key(n)) ?? 0) + t);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
};
const pct = (t: number) => `${((100 * t) / (total - idle)).toFixed(1).padStart(5)}%`;

out(`total ${(total / 1000).toFixed(0)} ms, idle/program ${(idle / 1000).toFixed(0)} ms; percentages are of the busy time`);
out('(writeBuffer/writev under postgres.js nextWrite include time the thread lost to PostgreSQL backends woken on the same CPU)\n');
out('self time by function:');
for (const [k, t] of group(frameKey).slice(0, top)) out(`  ${pct(t)}  ${k}`);
out('\nself time by file / package:');
for (const [k, t] of group(pkg).slice(0, top)) out(`  ${pct(t)}  ${k}`);

// Inclusive time: a sample counts once for every distinct frame key on its stack.
const inclusive = new Map<string, number>();
for (const [id, t] of selfTime) {
  if (isIdle(byId.get(id)!)) continue;
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = frameKey(byId.get(cur)!);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
}
out('\ninclusive time (project and framework frames):');
for (const [k, t] of [...inclusive]
  .filter(([k]) => !k.includes('node:') && !k.startsWith('('))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  out(`  ${pct(t)}  ${k}`);
