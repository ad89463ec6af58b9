import autocannon from 'autocannon';

/**
 * The load generator, run once per bench by bench/run.ts as
 * `taskset -c 1 node --import tsx bench/load.ts '<plan json>'`, so it never shares a core
 * with the server under test. It warms every row up, then measures the rows round-robin
 * (round 1: every row, round 2: every row, …) so that background load on the machine is
 * spread evenly over the targets instead of landing on whichever ran at the wrong time.
 * Prints one JSON line: a summary per row.
 */
interface Row {
  id: string;
  url: string;
  headers: Record<string, string>;
}
interface Plan {
  rows: Row[];
  connections: number;
  warmupSeconds: number;
  rounds: number;
  secondsPerRound: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as Plan;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

function hit(row: Row, seconds: number, samples: number[] | null) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: row.url, headers: row.headers, connections: plan.connections, duration: seconds },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    // autocannon's histogram keeps whole milliseconds: keep the exact 2xx times for p50/p99.
    if (samples) {
      instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
        if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
      });
    }
  });
}

const acc = new Map(plan.rows.map((r) => [r.id, { ok: 0, seconds: 0, non2xx: 0, errors: 0, timeouts: 0, rounds: [] as number[], samples: [] as number[] }]));

for (const row of plan.rows) await hit(row, plan.warmupSeconds, null);
for (let round = 0; round < plan.rounds; round++) {
  for (const row of plan.rows) {
    const a = acc.get(row.id)!;
    const r = await hit(row, plan.secondsPerRound, a.samples);
    a.ok += r['2xx'];
    a.seconds += r.duration;
    a.non2xx += r.non2xx;
    a.errors += r.errors;
    a.timeouts += r.timeouts;
    a.rounds.push(r['2xx'] / r.duration);
  }
}

const out = plan.rows.map((row) => {
  const a = acc.get(row.id)!;
  const sorted = Float64Array.from(a.samples).sort();
  return {
    id: row.id,
    requestsPerSecond: a.ok / a.seconds,
    roundsRps: a.rounds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok: a.ok,
    non2xx: a.non2xx,
    errors: a.errors,
    timeouts: a.timeouts,
    seconds: a.seconds,
  };
});
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
