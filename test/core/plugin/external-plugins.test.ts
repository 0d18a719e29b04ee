import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLUGIN_API_VERSION } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { CLI_TEST_TIMEOUT_MS, ROOT, switchboard } from '../cli/cli-helpers';

/**
 * Plugins from outside the installation, loaded by a real kernel the way a partner ships
 * them: a folder (PLUGINS_PATH) and an npm package (PLUGINS_PACKAGES), each importing the
 * kernel as `switchboard/core` (and the flows plugin as `switchboard/flows`), never by path.
 */
jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const BUILT_IN = ['agents', 'flows'].map((id) => path.join(ROOT, 'plugins', id));
const [major, minor] = PLUGIN_API_VERSION.split('.');
let outside: string;

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** A partner's plugin folder, in TypeScript, with a route that says who answered. */
function writeFolderPlugin(dir: string, id: string, apiVersion: string): string {
  write(path.join(dir, 'plugin.json'), JSON.stringify({ id, apiVersion }));
  write(
    path.join(dir, 'index.ts'),
    `import { coreServices, definePlugin, defineRoute, Type, type HttpService } from 'switchboard/core';

const Pong = Type.Object({ data: Type.Object({ plugin: Type.String(), tenant: Type.String() }) });

export default definePlugin({
  id: '${id}',
  deps: { http: coreServices.http },
  init({ http }: { http: HttpService }) {
    http.route(defineRoute({ method: 'GET', path: '/api/v1/${id}/ping', summary: 'Ping', response: Pong, handler: ({ tenant }) => ({ data: { plugin: '${id}', tenant: tenant.slug } }) }));
  },
});
`,
  );
  return dir;
}

/**
 * A partner's package as npm installs a `file:` dependency: the package's own folder
 * (built JavaScript, package.json with its `switchboard` manifest and `exports`), linked
 * into an application's node_modules.
 */
function installPackage(app: string, name: string, apiVersion: string): string {
  const source = path.join(outside, 'src', name.replace('/', '+'));
  write(
    path.join(source, 'package.json'),
    JSON.stringify({
      name,
      version: '1.2.0',
      description: 'Acme CRM for Switchboard',
      exports: { '.': './dist/index.js' },
      switchboard: { id: 'acme-crm', apiVersion, dependsOn: ['flows'] },
    }),
  );
  write(
    path.join(source, 'dist', 'index.js'),
    `'use strict';
const { coreServices, definePlugin, defineRoute, Type } = require('switchboard/core');
const { defineAction, defineFlowApp, flowApps } = require('switchboard/flows');

const lookup = defineAction({
  key: 'lookup_lead', name: 'Look up a lead', description: 'Finds a lead by email',
  input: Type.Object({ email: Type.String() }, { additionalProperties: false }),
  outputSample: { found: false }, pure: true, run: () => ({ found: false }),
});
const app = defineFlowApp({ uid: 'acme_crm', name: 'Acme CRM', description: 'Leads', icon: 'data:,', category: 'builtin', actions: [lookup] });

module.exports = definePlugin({
  id: 'acme-crm',
  dependsOn: ['flows'],
  contributes: [flowApps.add(app)],
  deps: { http: coreServices.http },
  init({ http }) {
    http.route(defineRoute({ method: 'GET', path: '/api/v1/acme-crm/leads', summary: 'Leads', response: Type.Object({ data: Type.Array(Type.String()) }), handler: () => ({ data: ['ada@example.com'] }) }));
  },
});
`,
  );
  const link = path.join(app, 'node_modules', name);
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(source, link, 'dir');
  return link;
}

beforeEach(() => {
  // Outside the repository: nothing here can reach the kernel by a relative path.
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-external-')));
  expect(path.relative(ROOT, outside).startsWith('..')).toBe(true);
});
afterEach(() => fs.rmSync(outside, { recursive: true, force: true }));

describe('plugins from outside the installation', () => {
  it('loads a plugin folder that imports switchboard/core, and serves its route', async () => {
    const folder = writeFolderPlugin(path.join(outside, 'plugins', 'acme-pings'), 'acme-pings', `${major}.${minor}`);
    const kit = await startTestKernel({ plugins: [folder] });
    try {
      expect(kit.kernel.plugins.map(({ plugin, origin }) => [plugin.id, origin])).toEqual([['acme-pings', folder]]);
      await kit.api.get('/api/v1/acme-pings/ping').expect(200, { data: { plugin: 'acme-pings', tenant: 'acme' } });
    } finally {
      await kit.stop();
    }
  });

  it('loads a plugin installed as an npm package, found through node_modules, which adds a flow app through switchboard/flows', async () => {
    const app = path.join(outside, 'app');
    const installed = installPackage(app, '@acme/switchboard-crm', PLUGIN_API_VERSION);
    let kit: TestKernel | undefined;
    try {
      // Resolution starts in the application's folder, as require('@acme/switchboard-crm') there would.
      kit = await startTestKernel({ plugins: [...BUILT_IN, { package: '@acme/switchboard-crm', from: path.join(app, 'src', 'server') }] });
      expect(kit.kernel.plugins.map(({ plugin }) => plugin.id)).toEqual(['agents', 'flows', 'acme-crm']);
      expect(kit.kernel.plugins[2].origin).toBe(installed);
      await kit.api.get('/api/v1/acme-crm/leads').expect(200, { data: ['ada@example.com'] });
      const actions = await kit.api.get('/api/v1/flow/apps/acme_crm/actions').expect(200);
      expect(actions.body.data.map((action: { key: string }) => action.key)).toEqual(['lookup_lead']);
    } finally {
      await kit?.stop();
    }
  });

  it('refuses to boot a plugin built for another plugin API, naming the plugin and both versions', async () => {
    const other = `${Number(major) + 1}.0`;
    const folder = writeFolderPlugin(path.join(outside, 'plugins', 'acme-old'), 'acme-old', other);
    await expect(startTestKernel({ plugins: [folder] })).rejects.toThrow(
      `plugin "acme-old" (${folder}) was built for plugin API ${other}, but this Switchboard's plugin API is ${PLUGIN_API_VERSION}: the major versions differ`,
    );

    const app = path.join(outside, 'app');
    installPackage(app, 'switchboard-plugin-acme', `${major}.${Number(minor) + 1}`);
    await expect(startTestKernel({ plugins: [...BUILT_IN, { package: 'switchboard-plugin-acme', from: app }] })).rejects.toThrow(
      `plugin "acme-crm" (${path.join(app, 'node_modules', 'switchboard-plugin-acme')}) was built for plugin API ${major}.${Number(minor) + 1}, newer than this Switchboard's ${PLUGIN_API_VERSION}`,
    );
  });

  it('refuses a package that is not installed, or that is no plugin, naming it', async () => {
    const app = path.join(outside, 'app');
    await expect(startTestKernel({ plugins: [{ package: '@acme/missing', from: app }] })).rejects.toThrow(
      `plugin package "@acme/missing" (PLUGINS_PACKAGES) is not installed: not found in ${path.join(app, 'node_modules')}`,
    );
    write(path.join(app, 'node_modules', 'left-pad', 'package.json'), JSON.stringify({ name: 'left-pad', version: '1.0.0' }));
    await expect(startTestKernel({ plugins: [{ package: 'left-pad', from: app }] })).rejects.toThrow(
      `package "left-pad" (${path.join(app, 'node_modules', 'left-pad', 'package.json')}) has no "switchboard" member`,
    );
    await expect(startTestKernel({ plugins: [{ package: '../../etc', from: app }] })).rejects.toThrow('"../../etc" in PLUGINS_PACKAGES is not an npm package name');
  });

  it('switchboard plugins lists PLUGINS_PATH folders and PLUGINS_PACKAGES packages (here found through NODE_PATH)', async () => {
    const folder = writeFolderPlugin(path.join(outside, 'plugins', 'acme-pings'), 'acme-pings', `${major}.${minor}`);
    const modules = path.join(outside, 'global', 'node_modules');
    installPackage(path.join(outside, 'global'), '@acme/switchboard-crm', `${major}.0`);
    const listed = await switchboard(['plugins'], {
      PLUGINS_PATH: path.dirname(folder),
      PLUGINS_PACKAGES: '@acme/switchboard-crm',
      NODE_PATH: modules,
    });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const plugins = JSON.parse(listed.stdout) as Array<{ id: string; origin: string }>;
    expect(plugins.slice(-2)).toEqual([
      { id: 'acme-pings', dependsOn: [], origin: folder },
      { id: 'acme-crm', dependsOn: ['flows'], origin: path.join(modules, '@acme', 'switchboard-crm') },
    ]);
  });
});
