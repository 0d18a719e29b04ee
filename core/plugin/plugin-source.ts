import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../errors/boot-error';
import { PLUGIN_BRAND, isPlugin, type NamedPlugin, type Plugin } from './define-plugin';
import { checkApiVersion } from './plugin-api-version';
import { discoverPluginDirs, type PluginManifest } from './plugin-manifest';
import { INSTALLATION_DIR, isPackageSource, readFolderManifest, readPackageManifest, type PluginPackageSource } from './plugin-package';
import { orderPlugins } from './load-order';

export type { PluginPackageSource } from './plugin-package';

/** A plugin as given to the kernel: its definition, a folder with a plugin.json, or an installed npm package. */
export type PluginSource = Plugin<any> | string | PluginPackageSource;

export interface LoadedPlugin {
  plugin: NamedPlugin<any>;
  origin: string;
}

/** The plugin folders of an installation: its own `plugins/` plus PLUGINS_PATH. */
export function installedPluginDirs(rootDir: string, pluginsPath: string[]): string[] {
  const builtIn = path.join(rootDir, 'plugins');
  return [...(fs.existsSync(builtIn) ? discoverPluginDirs(builtIn) : []), ...pluginsPath.map((p) => path.resolve(p)).flatMap(discoverPluginDirs)];
}

/** Every plugin an installation loads: its folders (installedPluginDirs), then the packages of PLUGINS_PACKAGES, found from the installation. */
export function installedPlugins(rootDir: string, settings: { pluginsPath: string[]; pluginsPackages: string[] }): PluginSource[] {
  return [...installedPluginDirs(rootDir, settings.pluginsPath), ...settings.pluginsPackages.map((name) => ({ package: name, from: rootDir }))];
}

/** The plugins shipped in the installation's own `plugins/` are built with its core: they alone may leave out `apiVersion`. */
const BUILT_IN_DIR = path.join(INSTALLATION_DIR, 'plugins');
const shippedUnversioned = (manifest: PluginManifest) => manifest.apiVersion === undefined && path.dirname(path.resolve(manifest.dir)) === BUILT_IN_DIR;

/**
 * Manifests are read, checked against this core's plugin API version and ordered before
 * any plugin code runs, so a plugin built for another API, a duplicate id, a missing
 * dependency or a cycle is refused without side effects. Then each module is loaded and
 * its default export checked against its manifest.
 */
export function loadPlugins(sources: PluginSource[], disabled: string[] = []): LoadedPlugin[] {
  const entries = sources.map((source) => {
    if (typeof source !== 'string' && !isPackageSource(source)) {
      if (!isPlugin(source)) throw new BootError('a plugin given to the kernel was not made with definePlugin()');
      if (source.id === undefined) throw new BootError('a plugin given to the kernel as code (not as a folder or a package) must say its `id` in definePlugin()');
      const named: NamedPlugin = Object.freeze({ ...source, id: source.id, dependsOn: source.dependsOn ?? [], [PLUGIN_BRAND]: true as const });
      return { id: named.id, dependsOn: named.dependsOn, origin: `plugin "${named.id}"`, source: named };
    }
    const manifest = typeof source === 'string' ? readFolderManifest(path.resolve(source)) : readPackageManifest(source);
    return { id: manifest.id, dependsOn: manifest.dependsOn, origin: manifest.dir, source: manifest };
  });
  const enabled = entries.filter((entry) => !disabled.includes(entry.id));
  for (const entry of enabled) {
    if ('entry' in entry.source && !shippedUnversioned(entry.source)) checkApiVersion({ id: entry.id, origin: entry.origin, apiVersion: entry.source.apiVersion });
  }
  return orderPlugins(enabled).map((entry) => ({
    plugin: 'entry' in entry.source ? requirePlugin(entry.source) : entry.source,
    origin: entry.origin,
  }));
}

/**
 * The folder's or package's module, named by its manifest. Code that still says its id or
 * dependencies (plugins written before the manifest was their one source) must agree with it.
 */
function requirePlugin(manifest: PluginManifest): NamedPlugin {
  let exported: any;
  try {
    exported = require(manifest.entry);
  } catch (error) {
    throw new BootError(`plugin "${manifest.id}" failed to load from ${manifest.entry}: ${(error as Error).stack ?? error}`);
  }
  const plugin = exported?.default ?? exported;
  if (!isPlugin(plugin)) {
    throw new BootError(`${manifest.entry} does not default-export a plugin made with definePlugin()`);
  }
  if (plugin.id !== undefined && plugin.id !== manifest.id) {
    throw new BootError(`plugin in ${manifest.dir} is "${plugin.id}" in code but "${manifest.id}" in plugin.json: leave the id out of the code (plugin.json is its one source)`);
  }
  const inCode = [...(plugin.dependsOn ?? [])].sort().join(',');
  if (plugin.dependsOn !== undefined && inCode !== [...manifest.dependsOn].sort().join(',')) {
    throw new BootError(
      `plugin "${manifest.id}": dependsOn differs between plugin.json (${manifest.dependsOn.join(', ') || 'none'}) and code (${inCode || 'none'}): leave it out of the code (plugin.json is its one source)`,
    );
  }
  return Object.freeze({ ...(plugin as Plugin), id: manifest.id, dependsOn: [...manifest.dependsOn], [PLUGIN_BRAND]: true as const });
}
