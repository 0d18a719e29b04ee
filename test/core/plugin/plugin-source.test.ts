import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definePlugin, PLUGIN_API_VERSION } from '../../../core';
import { installedPluginDirs, loadPlugins } from '../../../core/plugin/plugin-source';

const CORE = path.resolve(__dirname, '../../../core');
let root: string;

/** Writes a plugin folder (built for this plugin API unless the manifest says otherwise); `code` is the body of its index.ts. */
function writePlugin(dir: string, manifest: object, code?: string): string {
  const folder = path.join(root, dir);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'plugin.json'), JSON.stringify({ apiVersion: PLUGIN_API_VERSION, ...manifest }));
  if (code !== undefined) fs.writeFileSync(path.join(folder, 'index.ts'), code);
  return folder;
}

const pluginCode = (id: string, dependsOn: string[] = []) =>
  `import { definePlugin } from ${JSON.stringify(CORE)};\nexport default definePlugin({ id: '${id}', dependsOn: ${JSON.stringify(dependsOn)} });\n`;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-plugins-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('loadPlugins', () => {
  it('discovers folders with a plugin.json and loads them in dependency order', () => {
    writePlugin('b-flows', { id: 'flows', dependsOn: ['agents'] }, pluginCode('flows', ['agents']));
    writePlugin('a-agents', { id: 'agents' }, pluginCode('agents'));
    fs.mkdirSync(path.join(root, 'not-a-plugin'));
    const loaded = loadPlugins(installedPluginDirs(path.join(root, 'no-built-ins'), [root]));
    expect(loaded.map(({ plugin }) => plugin.id)).toEqual(['agents', 'flows']);
  });

  it('refuses a missing dependency before running any plugin code', () => {
    const marker = path.join(root, 'ran');
    writePlugin('flows', { id: 'flows', dependsOn: ['agents'] }, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x');\n${pluginCode('flows', ['agents'])}`);
    expect(() => loadPlugins([path.join(root, 'flows')])).toThrow('plugin "flows" depends on "agents", which is not installed');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('refuses a module that does not export a plugin made with definePlugin', () => {
    writePlugin('fake', { id: 'fake' }, `export default { id: 'fake', constructor: { name: 'Plugin' } };\n`);
    expect(() => loadPlugins([path.join(root, 'fake')])).toThrow('does not default-export a plugin made with definePlugin()');
  });

  it('refuses a manifest whose id differs from the code', () => {
    writePlugin('x', { id: 'crm' }, pluginCode('calendar'));
    expect(() => loadPlugins([path.join(root, 'x')])).toThrow('is "calendar" in code but "crm" in plugin.json');
  });

  it('refuses dependsOn that differs between manifest and code', () => {
    writePlugin('agents', { id: 'agents' }, pluginCode('agents'));
    writePlugin('flows', { id: 'flows', dependsOn: ['agents'] }, pluginCode('flows'));
    expect(() => loadPlugins([path.join(root, 'agents'), path.join(root, 'flows')])).toThrow('dependsOn differs between plugin.json (agents) and code (none)');
  });

  it('names the plugin whose code fails to load', () => {
    writePlugin('broken', { id: 'broken' }, `throw new Error('boom');\n`);
    expect(() => loadPlugins([path.join(root, 'broken')])).toThrow(/plugin "broken" failed to load .*boom/s);
  });

  it('refuses a manifest without an id and a folder without code', () => {
    writePlugin('noid', { dependsOn: [] }, pluginCode('x'));
    expect(() => loadPlugins([path.join(root, 'noid')])).toThrow('has no "id"');
    writePlugin('nocode', { id: 'nocode' });
    expect(() => loadPlugins([path.join(root, 'nocode')])).toThrow('has neither index.ts nor index.js');
  });

  it('skips disabled plugins, and a plugin depending on a disabled one is a boot error', () => {
    const a = definePlugin({ id: 'a' });
    const b = definePlugin({ id: 'b', dependsOn: ['a'] });
    expect(loadPlugins([a, b], ['b']).map(({ plugin }) => plugin.id)).toEqual(['a']);
    expect(() => loadPlugins([a, b], ['a'])).toThrow('plugin "b" depends on "a", which is not installed');
  });

  it('refuses a PLUGINS_PATH folder that does not exist', () => {
    expect(() => installedPluginDirs(root, [path.join(root, 'missing')])).toThrow('does not exist (check PLUGINS_PATH)');
  });
});

describe('definePlugin', () => {
  it('refuses ids that are not lower-case names', () => {
    expect(() => definePlugin({ id: 'Agents' })).toThrow('must be lower-case');
    expect(() => definePlugin({ id: 'a b' })).toThrow('must be lower-case');
  });
});
