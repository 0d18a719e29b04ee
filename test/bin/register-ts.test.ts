import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * bin/register-ts.js, the loader `switchboard` runs TypeScript with: compiled files are
 * cached on disk, so a start with nothing changed never loads swc.
 */
const ROOT = path.resolve(__dirname, '../..');
const REGISTER = path.join(ROOT, 'bin', 'register-ts.js');
// The Node.js the project runs on (the machine's own may be older).
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-register-ts-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Loads `file` through the loader; answers what it printed: its value, and whether swc was loaded. */
function load(file: string, cache: string): { value: string; swcLoaded: boolean } {
  const script = `require(${JSON.stringify(file)}); console.log(JSON.stringify({ value: globalThis.loaded, swcLoaded: Object.keys(require.cache).some((key) => key.includes('@swc/core') && !key.endsWith('package.json')) }))`;
  const out = execFileSync(fs.existsSync(NODE) ? NODE : process.execPath, ['-r', REGISTER, '-e', script], { env: { ...process.env, SWITCHBOARD_TS_CACHE: cache }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

const source = (value: string) => `enum Kind { A = ${JSON.stringify(value)} }\n(globalThis as any).loaded = Kind.A as string;\n`;

describe('bin/register-ts.js', () => {
  it('compiles a file once, then loads it from the cache without swc, and again when it changes', () => {
    const file = path.join(dir, 'module.ts');
    const cache = path.join(dir, 'cache');
    fs.writeFileSync(file, source('first'));
    expect(load(file, cache)).toEqual({ value: 'first', swcLoaded: true });
    expect(fs.readdirSync(cache)).toHaveLength(1);
    expect(load(file, cache)).toEqual({ value: 'first', swcLoaded: false });

    fs.writeFileSync(file, source('second'));
    expect(load(file, cache)).toEqual({ value: 'second', swcLoaded: true });
    expect(fs.readdirSync(cache)).toHaveLength(2);
    expect(fs.readdirSync(cache).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('compiles every time with the cache off, or where it cannot write', () => {
    const file = path.join(dir, 'module.ts');
    fs.writeFileSync(file, source('uncached'));
    expect(load(file, 'off')).toEqual({ value: 'uncached', swcLoaded: true });
    expect(load(file, 'off')).toEqual({ value: 'uncached', swcLoaded: true });
    // A file where the folder should be: nothing can be written under it.
    const blocked = path.join(dir, 'blocked');
    fs.writeFileSync(blocked, '');
    expect(load(file, path.join(blocked, 'cache'))).toEqual({ value: 'uncached', swcLoaded: true });
  });
});
