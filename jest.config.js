// Tests run TypeScript through swc with the same options as the runtime (.swcrc).
// MikroORM 7 is ESM-only: jest loads it through require(esm), which needs
// --experimental-vm-modules (set by `npm test`) on Node >= 24.9.
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swc.$schema;

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/core/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/core/testing/jest-global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
