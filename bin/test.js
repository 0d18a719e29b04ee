#!/usr/bin/env node
'use strict';
// `npm test`: jest over the suite, files in parallel; then, on a full run that passed,
// the tests that must run alone (`*.serial-test.ts`): they stop and start the machine's
// RabbitMQ, which would pull the broker from under any test file running beside them.
// Arguments go to jest as they are (`npm test -- test/plugins/tables`); such a run
// skips the serial phase (run it alone with `npm run test:serial`).
const { spawnSync } = require('node:child_process');

const jest = require.resolve('jest/bin/jest');
// MikroORM 7 is ESM-only: jest loads it through require(esm), which needs this flag.
const env = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };
const run = (args) => spawnSync(process.execPath, [jest, ...args], { stdio: 'inherit', env }).status ?? 1;
const SERIAL = ['--runInBand', '--testMatch', '<rootDir>/test/**/*.serial-test.ts'];

const args = process.argv.slice(2);
if (args[0] === '--serial') process.exit(run([...SERIAL, ...args.slice(1)]));
let status = run(args);
if (status === 0 && args.length === 0) status = run(SERIAL);
process.exit(status);
