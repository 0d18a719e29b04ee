import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BootError, PLUGIN_API_VERSION } from '../../../core';
import { checkApiVersion, parseApiVersion } from '../../../core/plugin/plugin-api-version';
import { loadPlugins } from '../../../core/plugin/plugin-source';

const CORE = path.resolve(__dirname, '../../../core');
const BUILT_IN = path.resolve(__dirname, '../../../plugins');
let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-api-version-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A plugin folder whose code, when it runs, leaves a marker file. */
function writePlugin(id: string, manifest: Record<string, unknown>): string {
  const folder = path.join(root, id);
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'plugin.json'), JSON.stringify({ id, ...manifest }));
  fs.writeFileSync(
    path.join(folder, 'index.ts'),
    `require('fs').writeFileSync(${JSON.stringify(path.join(root, `${id}.ran`))}, 'x');\n` +
      `import { definePlugin } from ${JSON.stringify(CORE)};\nexport default definePlugin({ id: '${id}' });\n`,
  );
  return folder;
}

const ran = (id: string) => fs.existsSync(path.join(root, `${id}.ran`));

describe('PLUGIN_API_VERSION', () => {
  it('is a MAJOR.MINOR.PATCH version', () => {
    expect(PLUGIN_API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(parseApiVersion(PLUGIN_API_VERSION)).not.toBeNull();
  });

  it('reads MAJOR.MINOR with an optional patch, and nothing else', () => {
    expect(parseApiVersion('1.2')).toEqual({ major: 1, minor: 2 });
    expect(parseApiVersion('3.0.7')).toEqual({ major: 3, minor: 0 });
    for (const text of ['1', '^1.0', '1.0.0-beta', 'v1.0', '01.0', '', '1.x']) expect(parseApiVersion(text)).toBeNull();
  });
});

describe('checkApiVersion', () => {
  const plugin = (apiVersion?: string) => ({ id: 'acme-crm', origin: '/opt/acme/acme-crm', apiVersion });

  it('accepts the same major with a minor up to the core’s, whatever the patch', () => {
    expect(() => checkApiVersion(plugin('2.3'), '2.3.0')).not.toThrow();
    expect(() => checkApiVersion(plugin('2.0.9'), '2.3.0')).not.toThrow();
    expect(() => checkApiVersion(plugin('2.3.4'), '2.3.0')).not.toThrow();
  });

  it('refuses another major, naming the plugin, where it is and both versions', () => {
    expect(() => checkApiVersion(plugin('1.4'), '2.3.0')).toThrow(
      new BootError('plugin "acme-crm" (/opt/acme/acme-crm) was built for plugin API 1.4, but this Switchboard\'s plugin API is 2.3.0: the major versions differ'),
    );
    expect(() => checkApiVersion(plugin('3.0'), '2.3.0')).toThrow('was built for plugin API 3.0, but this Switchboard\'s plugin API is 2.3.0');
  });

  it('refuses a newer minor: the plugin may use what this core lacks', () => {
    expect(() => checkApiVersion(plugin('2.4'), '2.3.0')).toThrow(
      'plugin "acme-crm" (/opt/acme/acme-crm) was built for plugin API 2.4, newer than this Switchboard\'s 2.3.0: upgrade Switchboard or use an older release of the plugin',
    );
  });

  it('refuses a plugin that states no version, or one that is not a version', () => {
    expect(() => checkApiVersion(plugin(undefined), '2.3.0')).toThrow('plugin "acme-crm" (/opt/acme/acme-crm) does not say which plugin API it was built for: add "apiVersion": "2.3"');
    expect(() => checkApiVersion(plugin('latest'), '2.3.0')).toThrow('has "apiVersion": "latest", which is not a version such as "1.0"');
  });
});

describe('loadPlugins and the plugin API version', () => {
  const [major, minor] = PLUGIN_API_VERSION.split('.').map(Number);

  it('refuses a plugin built for another major before any plugin code runs, naming it and both versions', () => {
    const good = writePlugin('good', { apiVersion: `${major}.${minor}` });
    const old = writePlugin('old', { apiVersion: `${major + 1}.0` });
    expect(() => loadPlugins([good, old])).toThrow(`plugin "old" (${old}) was built for plugin API ${major + 1}.0, but this Switchboard's plugin API is ${PLUGIN_API_VERSION}`);
    expect(ran('good')).toBe(false);
    expect(ran('old')).toBe(false);
  });

  it('refuses a manifest whose apiVersion is not a string', () => {
    const folder = writePlugin('typed', { apiVersion: 1 });
    expect(() => loadPlugins([folder])).toThrow(`plugin manifest ${path.join(folder, 'plugin.json')}: "apiVersion" must be a string such as "1.0"`);
  });

  it('loads a plugin built for an older minor of the same major, and ignores a disabled plugin’s version', () => {
    const current = writePlugin('current', { apiVersion: `${major}.0` });
    const future = writePlugin('future', { apiVersion: `${major}.${minor + 1}` });
    expect(loadPlugins([current, future], ['future']).map(({ plugin }) => plugin.id)).toEqual(['current']);
    expect(ran('current')).toBe(true);
    expect(() => loadPlugins([future])).toThrow(`plugin "future" (${future}) was built for plugin API ${major}.${minor + 1}, newer than`);
  });

  it('requires the version of plugins from outside the installation; its own plugins/ ship with this core', () => {
    const unversioned = writePlugin('unversioned', {});
    expect(() => loadPlugins([unversioned])).toThrow(`plugin "unversioned" (${unversioned}) does not say which plugin API it was built for`);
    const ids = loadPlugins(['agents', 'flows', 'app-logic'].map((id) => path.join(BUILT_IN, id))).map(({ plugin }) => plugin.id);
    expect(ids).toEqual(['agents', 'flows', 'app-logic']);
  });
});
