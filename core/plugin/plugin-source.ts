import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../kernel/boot-error';
import { isPlugin, type Plugin } from './define-plugin';
import { discoverPluginDirs, readManifest, type PluginManifest } from './plugin-manifest';
import { orderPlugins } from './load-order';

/** A plugin as given to the kernel: its definition, or a folder with a plugin.json. */
export type PluginSource = Plugin<any> | string;

export interface LoadedPlugin {
  plugin: Plugin<any>;
  origin: string;
}

/** The plugin folders of an installation: its own `plugins/` plus PLUGINS_PATH. */
export function installedPluginDirs(rootDir: string, pluginsPath: string[]): string[] {
  const builtIn = path.join(rootDir, 'plugins');
  return [...(fs.existsSync(builtIn) ? discoverPluginDirs(builtIn) : []), ...pluginsPath.map((p) => path.resolve(p)).flatMap(discoverPluginDirs)];
}

/**
 * Manifests are read and ordered before any plugin code runs, so a duplicate id,
 * a missing dependency or a cycle is refused without side effects. Then each
 * module is loaded and its default export checked against its manifest.
 */
export function loadPlugins(sources: PluginSource[], disabled: string[] = []): LoadedPlugin[] {
  const entries = sources.map((source) => {
    if (typeof source !== 'string') {
      if (!isPlugin(source)) throw new BootError('a plugin given to the kernel was not made with definePlugin()');
      return { id: source.id, dependsOn: source.dependsOn ?? [], origin: `plugin "${source.id}"`, source };
    }
    const manifest = readManifest(path.resolve(source));
    return { id: manifest.id, dependsOn: manifest.dependsOn, origin: manifest.dir, source: manifest };
  });
  const enabled = entries.filter((entry) => !disabled.includes(entry.id));
  return orderPlugins(enabled).map((entry) => ({
    plugin: typeof entry.source === 'string' || !('entry' in entry.source) ? (entry.source as Plugin) : requirePlugin(entry.source),
    origin: entry.origin,
  }));
}

function requirePlugin(manifest: PluginManifest): Plugin {
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
  if (plugin.id !== manifest.id) {
    throw new BootError(`plugin in ${manifest.dir} is "${plugin.id}" in code but "${manifest.id}" in plugin.json`);
  }
  const inCode = [...(plugin.dependsOn ?? [])].sort().join(',');
  if (inCode !== [...manifest.dependsOn].sort().join(',')) {
    throw new BootError(`plugin "${plugin.id}": dependsOn differs between plugin.json (${manifest.dependsOn.join(', ') || 'none'}) and code (${inCode || 'none'})`);
  }
  return plugin;
}
