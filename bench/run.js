'use strict';
// Runs every benchmark in bench/ (each bench/*.ts, in name order; helpers live in bench/lib) one after the
// other, each in a Node process of its own: `npm run bench`, or
// `npm run bench -- api-read` for the ones whose name contains a word.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const filters = process.argv.slice(2);
const benches = fs
  .readdirSync(__dirname)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
  .filter((name) => filters.length === 0 || filters.some((word) => name.includes(word)))
  .sort();

if (benches.length === 0) {
  console.error(`no benchmark in bench/ matches ${filters.join(', ') || '*.ts'}`);
  process.exit(1);
}

let failed = 0;
for (const name of benches) {
  console.log(`\n=== bench/${name}`);
  const result = spawnSync(process.execPath, ['-r', path.join(root, 'bin', 'register-ts.js'), path.join(__dirname, name)], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${name} failed (${result.signal ?? `exit status ${result.status}`})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
