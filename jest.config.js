// Tests run TypeScript through swc with the same options as the runtime (.swcrc).
// MikroORM 7 is ESM-only: jest loads it through require(esm), which needs
// --experimental-vm-modules (set by `npm test`) on Node >= 24.9.
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swc.$schema;

/**
 * `switchboard/...` as the runtime resolves it (bin/register-ts.js): through this
 * package's `exports`, from any file, a plugin folder outside the repository included.
 */
const { exports: exported } = JSON.parse(fs.readFileSync(`${__dirname}/package.json`, 'utf8'));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const selfReferences = Object.fromEntries(
  Object.entries(exported).map(([subpath, target]) => [
    `^${escape(`switchboard${subpath.slice(1)}`).replace('\\*', '(.+)')}$`,
    `<rootDir>/${target.slice(2).replace('*', '$1')}`,
  ]),
);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: selfReferences,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/core/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/core/testing/jest-global-teardown.ts',
  // Many tests boot a kernel (migrations, plugins) or two: on a loaded 2-core machine one
  // took 30-60 s where it takes 10 alone. A hang still fails, 90 s later.
  testTimeout: 90000,
  maxWorkers: 2,
  // Each file's kernels leave some memory behind in their worker (about 30-60 MB a file
  // that boots one, measured with --logHeapUsage): a worker over this after a file is
  // replaced by a fresh one. Without it a worker neared its 4.5 GB heap limit late in a
  // full run, thrashed in GC (its tests' database connections timed out) and crashed
  // ("Jest worker ran out of memory"), failing two suites that pass alone.
  workerIdleMemoryLimit: '1536MB',
};
