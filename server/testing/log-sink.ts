import { Writable } from 'node:stream';

/** A log destination for a test harness that keeps every line written to it. */
export function logSink() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, sink };
}
