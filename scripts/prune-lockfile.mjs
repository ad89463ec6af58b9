// The registry mirror this project installs from serves only the packages of the platforms
// it builds on, so npm cannot record the other platforms' optional binaries (Next's SWC,
// Tailwind's oxide, …) and `npm ci` would refuse the lock as out of sync. This drops the
// optionalDependencies references that have no entry in the lock. Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const present = new Set(Object.keys(lock.packages).map((p) => p.replace(/^.*node_modules\//, '')));
let pruned = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  if (!pkg.optionalDependencies) continue;
  for (const name of Object.keys(pkg.optionalDependencies)) {
    if (!present.has(name) && path !== '') {
      delete pkg.optionalDependencies[name];
      pruned++;
    }
  }
  if (Object.keys(pkg.optionalDependencies).length === 0) delete pkg.optionalDependencies;
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`pruned ${pruned} optional dependencies the registry does not serve`);
