import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../core/config/load-config';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-config-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, value: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
};

describe('loadConfig', () => {
  it('has sane defaults for a fresh machine', () => {
    const { core } = loadConfig({ env: {}, configDir: dir });
    expect(core).toMatchObject({ port: 8080, baseDomain: 'localhost', databaseUrl: '', dataDir: './data', trustProxy: false, adminToken: '', migrateOnStart: true });
  });

  it('layers default.json < $NODE_ENV.json < CONFIG_FILE < environment < overrides', () => {
    write('default.json', { port: 1001, baseDomain: 'a.test', logLevel: 'warn', host: '127.0.0.1' });
    write('production.json', { port: 1002, baseDomain: 'b.test', logLevel: 'error' });
    const extra = write('extra.json', { port: 1003, logLevel: 'debug' });
    const { core } = loadConfig({ env: { NODE_ENV: 'production', CONFIG_FILE: extra, PORT: '1004' }, configDir: dir, overrides: { host: '::1' } });
    expect(core).toMatchObject({ port: 1004, logLevel: 'debug', baseDomain: 'b.test', host: '::1' });
  });

  it('reads lists and booleans from the environment', () => {
    const { core } = loadConfig({ env: { PLUGINS_PATH: '/opt/a,/opt/b', TRUST_PROXY: 'true', MIGRATE_ON_START: 'false' }, configDir: dir });
    expect(core.pluginsPath).toEqual(['/opt/a', '/opt/b']);
    expect(core.trustProxy).toBe(true);
    expect(core.migrateOnStart).toBe(false);
  });

  it('stops on an invalid value, naming the key', () => {
    expect(() => loadConfig({ env: { PORT: '99999' }, configDir: dir })).toThrow(/invalid configuration: port: .*99999/);
    expect(() => loadConfig({ env: { LOG_LEVEL: 'loud' }, configDir: dir })).toThrow(/invalid configuration: logLevel: must be one of/);
  });

  it('stops on an unknown key in a file', () => {
    const file = write('typo.json', { prot: 8081 });
    expect(() => loadConfig({ env: { CONFIG_FILE: file }, configDir: dir })).toThrow(/invalid configuration: .*prot/);
  });

  it('stops when CONFIG_FILE does not exist, naming it', () => {
    expect(() => loadConfig({ env: { CONFIG_FILE: path.join(dir, 'nope.json') }, configDir: dir })).toThrow(/CONFIG_FILE .*nope.json does not exist/);
  });

  it("validates each plugin's slice under its id, with its own environment variables", () => {
    const slices = { notes: { maxPerTenant: { format: 'nat', default: 10, env: 'NOTES_MAX' } } };
    expect(loadConfig({ env: { NOTES_MAX: '3' }, configDir: dir, pluginSlices: slices }).get('notes.maxPerTenant')).toBe(3);
    expect(() => loadConfig({ env: { NOTES_MAX: '-1' }, configDir: dir, pluginSlices: slices })).toThrow(/notes.maxPerTenant/);
  });

  it('refuses a plugin whose id is a core key', () => {
    expect(() => loadConfig({ env: {}, configDir: dir, pluginSlices: { port: {} } })).toThrow('plugin id "port" clashes with a core config key');
  });

  it('redacts secrets in the printable form', () => {
    const printed = loadConfig({ env: { ADMIN_TOKEN: 'top-secret', DATABASE_URL: 'postgresql://u:pw@db/x' }, configDir: dir }).redacted();
    expect(JSON.stringify(printed)).not.toContain('top-secret');
    expect(JSON.stringify(printed)).not.toContain('pw@db');
    expect(printed.port).toBe(8080);
  });
});
