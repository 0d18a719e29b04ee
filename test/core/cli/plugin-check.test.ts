import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkPlugin, type PluginSettings } from '../../../core/cli/plugin-check';
import { newPlugin } from '../../../core/cli/plugin-new';
import { parseApiVersion, PLUGIN_API_VERSION } from '../../../core/plugin/plugin-api-version';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { CLI_TEST_TIMEOUT_MS, ROOT, switchboard } from './cli-helpers';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const { major, minor } = parseApiVersion(PLUGIN_API_VERSION)!;
const NEXT_MAJOR = `${major + 1}.0`;
const NEXT_MINOR = `${major}.${minor + 1}`;

/** An installation with only its built-in plugins. */
const BUILT_IN: PluginSettings = { pluginsPath: [], pluginsPackages: [], disabledPlugins: [] };

let temp: string;
let flowApp: string;
let plain: string;
beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-plugin-check-'));
  flowApp = newPlugin({ id: 'checked-crm', kind: 'flow-app', dir: path.join(temp, 'checked-crm'), cwd: temp, pluginsPath: [] }).dir;
  plain = newPlugin({ id: 'checked-plain', kind: 'plugin', dir: path.join(temp, 'checked-plain'), cwd: temp, pluginsPath: [] }).dir;
});
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

/**
 * A copy of a generated plugin under a folder of its own (a module path never loaded
 * before, so the test's module registry holds nothing of it), changed by `edit`.
 */
function brokenCopy(of: string, name: string, edit: Record<string, (text: string) => string>): string {
  const dir = path.join(temp, 'broken', name, path.basename(of));
  fs.cpSync(of, dir, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    const before = fs.readFileSync(path.join(dir, file), 'utf8');
    const after = change(before);
    expect(after).not.toBe(before);
    fs.writeFileSync(path.join(dir, file), after);
  }
  return dir;
}

const manifest = (change: (json: Record<string, unknown>) => Record<string, unknown>) => (text: string) => JSON.stringify(change(JSON.parse(text)));

describe('switchboard plugin check', () => {
  it('passes what plugin new writes, from a folder outside the installation', () => {
    expect(checkPlugin(flowApp, BUILT_IN)).toEqual({ id: 'checked-crm', dir: flowApp, problems: [] });
    expect(checkPlugin(plain, BUILT_IN)).toEqual({ id: 'checked-plain', dir: plain, problems: [] });
  });

  it('checks a folder shaped as the plugin’s npm package (its manifest the `switchboard` member of package.json)', () => {
    const packaged = path.join(temp, 'packaged', 'checked-crm');
    fs.cpSync(flowApp, packaged, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(packaged, 'plugin.json'), 'utf8'));
    fs.rmSync(path.join(packaged, 'plugin.json'));
    const write = (switchboardMember: Record<string, unknown>) =>
      fs.writeFileSync(path.join(packaged, 'package.json'), JSON.stringify({ name: '@acme/switchboard-checked-crm', version: '1.0.0', switchboard: switchboardMember }));
    write({ id: manifest.id, apiVersion: manifest.apiVersion, dependsOn: manifest.dependsOn, plugin: './index.ts' });
    expect(checkPlugin(packaged, BUILT_IN)).toEqual({ id: 'checked-crm', dir: packaged, problems: [] });
    // The same checks as a plugin.json's: here, a dependency that is not installed.
    write({ id: manifest.id, apiVersion: manifest.apiVersion, dependsOn: ['flows', 'nowhere'], plugin: './index.ts' });
    expect(checkPlugin(packaged, BUILT_IN).problems).toEqual(['plugin "checked-crm" depends on "nowhere", which is not installed (neither built in nor in PLUGINS_PATH or PLUGINS_PACKAGES)']);
    fs.writeFileSync(path.join(packaged, 'package.json'), JSON.stringify({ name: 'not-a-plugin', version: '1.0.0' }));
    expect(checkPlugin(packaged, BUILT_IN).problems[0]).toMatch(/has neither a plugin\.json nor a "switchboard" member/);
  });

  it('passes every built-in plugin: the checks of the flows plugin find nothing in its own apps', () => {
    const failing = installedPluginDirs(ROOT, []).map((dir) => checkPlugin(dir, BUILT_IN)).filter((check) => check.problems.length > 0);
    expect(failing).toEqual([]);
  });

  it('names a manifest problem before running any of the plugin’s code: the plugin API version, a dependency not installed', () => {
    const dir = brokenCopy(flowApp, 'manifest', {
      'plugin.json': manifest((json) => ({ ...json, apiVersion: NEXT_MAJOR, dependsOn: ['flows', 'crm-core'] })),
      // Would throw when loaded: nothing of the module runs.
      'index.ts': (text) => `throw new Error('loaded');\n${text}`,
    });
    expect(checkPlugin(dir, BUILT_IN).problems).toEqual([
      `plugin "checked-crm" (${dir}) was built for plugin API ${NEXT_MAJOR}, but this Switchboard's plugin API is ${PLUGIN_API_VERSION}: the major versions differ`,
      'plugin "checked-crm" depends on "crm-core", which is not installed (neither built in nor in PLUGINS_PATH or PLUGINS_PACKAGES)',
    ]);
  });

  it('names an id no plugin may have', () => {
    const dir = brokenCopy(plain, 'misnamed', { 'plugin.json': manifest((json) => ({ ...json, id: 'port' })) });
    expect(checkPlugin(dir, BUILT_IN).problems).toEqual([
      `${path.join(dir, 'plugin.json')}: plugin id "port" is the name of a core setting, under which the plugin's own settings would go: choose another`,
    ]);
  });

  it('names a dependency left out by DISABLED_PLUGINS, and an id another installed plugin has', () => {
    expect(checkPlugin(flowApp, { ...BUILT_IN, disabledPlugins: ['flows'] }).problems).toEqual(['plugin "checked-crm" depends on "flows", which DISABLED_PLUGINS leaves out']);
    const twin = brokenCopy(plain, 'twin', { 'plugin.json': manifest((json) => ({ ...json, id: 'checked-crm' })) });
    expect(checkPlugin(twin, { ...BUILT_IN, pluginsPath: [temp] }).problems).toEqual([
      `plugin id "checked-crm" is also the id of the installed plugin in ${flowApp}: the boot refuses both`,
    ]);
  });

  it('names what the kernel refuses of the module: an id other than the manifest’s, a contribution to a plugin not depended on', () => {
    // Code that still says an id must say the manifest's.
    const renamed = brokenCopy(plain, 'renamed', { 'index.ts': (text) => text.replace('export default definePlugin({', "export default definePlugin({\n  id: 'other-plain',") });
    expect(checkPlugin(renamed, BUILT_IN).problems).toEqual([
      `plugin in ${renamed} is "other-plain" in code but "checked-plain" in plugin.json: leave the id out of the code (plugin.json is its one source)`,
    ]);
    const undeclared = brokenCopy(flowApp, 'undeclared', { 'plugin.json': manifest((json) => ({ ...json, dependsOn: [] })) });
    expect(checkPlugin(undeclared, BUILT_IN).problems).toEqual([
      'plugin "checked-crm" contributes to extension point "flows.apps", which no loaded plugin provides',
    ]);
  });

  it('names each problem of a flow app the catalog would refuse at boot: an option link, a poll interval, a schema, an output sample', () => {
    const dir = brokenCopy(flowApp, 'flow-app', {
      'create-lead.ts': (text) => text.replace("Options('lists'", "Options('list'").replace("outputSample: { id: 1043,", 'outputSample: { id: 1043, seen_at: new Date(),'),
      'new-lead.ts': (text) => text.replace('intervalSeconds: 60', 'intervalSeconds: 0.5'),
      'auth.ts': (text) => text.replace("format: 'uri'", "format: 'url-ish'"),
    });
    expect(checkPlugin(dir, BUILT_IN).problems).toEqual([
      'flow app "checked_crm": action "create_lead": field "list_id" names the option list "list", which the app does not have (it has lists)',
      'flow app "checked_crm": trigger "new_lead" polls every 0.5 seconds: intervalSeconds must be a whole number from 1 to 86400',
      'flow app "checked_crm": its auth schema does not compile: unknown format "url-ish" ignored in schema at path "#/properties/base_url"',
      'flow app "checked_crm": action "create_lead": its outputSample changes when stored as JSON (a Date, an undefined member, a class instance): write it as JSON',
    ]);
  });

  it('prints ok and exits 0, or prints the problems and exits 1', async () => {
    expect(await switchboard(['plugin', 'check', flowApp], {}, temp)).toEqual({ code: 0, stdout: 'ok: plugin "checked-crm" (checked-crm)\n', stderr: '' });
    const dir = brokenCopy(plain, 'cli', { 'plugin.json': manifest((json) => ({ ...json, apiVersion: NEXT_MINOR })) });
    expect(await switchboard(['plugin', 'check', dir], {}, temp)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `plugin "checked-plain" (${path.relative(temp, dir)}): 1 problem\n` +
        `  - plugin "checked-plain" (${dir}) was built for plugin API ${NEXT_MINOR}, newer than this Switchboard's ${PLUGIN_API_VERSION}: upgrade Switchboard or use an older release of the plugin\n`,
    });
    expect((await switchboard(['plugin', 'check'], {}, temp)).code).toBe(2);
  });
});
