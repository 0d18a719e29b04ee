import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { INSTALLATION_DIR } from '../plugin/plugin-package';
import { CommandRefused } from './command-refused';

/**
 * `switchboard plugin test`: the `*.test.ts` files of plugin folders, wherever they are,
 * run by jest with this installation's test setup (jest.config.js: the TypeScript
 * transform, `switchboard/*` mapped to this installation, one database server for the
 * run). Needs a development install (jest is a dev dependency).
 */
export function testPlugins(dirs: string[], cwd: string): number {
  const roots = dirs.map((dir) => path.resolve(cwd, dir));
  const missing = roots.find((root) => !fs.existsSync(root) || !fs.statSync(root).isDirectory());
  if (missing) throw new CommandRefused(`${missing} is not a folder`);
  let jest: string;
  try {
    jest = require.resolve('jest/bin/jest', { paths: [INSTALLATION_DIR] });
  } catch {
    throw new CommandRefused(`plugin test needs jest, a development dependency: run npm install in ${INSTALLATION_DIR}`);
  }
  const base = require(path.join(INSTALLATION_DIR, 'jest.config.js')) as Record<string, unknown>;
  // `<rootDir>` stays the installation's (its transform, mappings and database setup); only the tests come from the plugins.
  const config = { ...base, rootDir: INSTALLATION_DIR, roots, testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/'] };
  // MikroORM 7 is ESM-only: jest loads it through require(esm), which needs this flag (as `npm test` sets it).
  const env = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };
  const run = spawnSync(process.execPath, [jest, '--config', JSON.stringify(config)], { cwd, stdio: 'inherit', env });
  return run.status ?? 1;
}
