import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BootError } from '../errors/boot-error';
import { MANIFEST_FILE, parseManifest, readJsonFile, readManifest, type PluginManifest } from './plugin-manifest';

/** The installation's folder (where its package.json is). */
export const INSTALLATION_DIR = path.resolve(__dirname, '..', '..');

/** A plugin installed as an npm package (PLUGINS_PACKAGES), found from `from` as `require` would find it. */
export interface PluginPackageSource {
  package: string;
  /** The folder resolution starts from: the installation's by default, so an app's own node_modules above it is searched too. */
  from?: string;
}

// npm's rules for a package name (with an optional scope); anything else could walk out of node_modules.
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export function isPackageSource(source: unknown): source is PluginPackageSource {
  return typeof source === 'object' && source !== null && typeof (source as PluginPackageSource).package === 'string';
}

/**
 * The package's folder, looked up in the node_modules folders Node itself searches from
 * `from` (each parent's `node_modules`, then NODE_PATH and the global folders), first
 * match wins. The package.json is read from the folder rather than required, so a
 * package whose `exports` leave out `./package.json` is still found.
 */
export function findPluginPackage(name: string, from: string): string {
  if (!PACKAGE_NAME.test(name)) throw new BootError(`"${name}" in PLUGINS_PACKAGES is not an npm package name`);
  const searched = createRequire(path.join(path.resolve(from), 'package.json')).resolve.paths(name) ?? [];
  const found = searched.map((folder) => path.join(folder, name)).find((dir) => fs.existsSync(path.join(dir, 'package.json')));
  if (!found) throw new BootError(`plugin package "${name}" (PLUGINS_PACKAGES) is not installed: not found in ${searched.join(', ')}`);
  return found;
}

/**
 * The manifest of a plugin folder: its plugin.json, or, for a folder shaped as an npm
 * package (a partner's package before it is published, `switchboard plugin check` of it),
 * the `switchboard` member of its package.json, whose `plugin` (else `main`, else
 * index.ts or index.js) is the module to load.
 */
export function readFolderManifest(dir: string): PluginManifest {
  if (fs.existsSync(path.join(dir, MANIFEST_FILE)) || !fs.existsSync(path.join(dir, 'package.json'))) return readManifest(dir);
  const file = path.join(dir, 'package.json');
  const pkg = readJsonFile(file, 'package manifest') as { switchboard?: unknown; description?: unknown; main?: unknown };
  if (typeof pkg.switchboard !== 'object' || pkg.switchboard === null) {
    throw new BootError(`${dir} has neither a ${MANIFEST_FILE} nor a "switchboard" member in its package.json, so it is not a Switchboard plugin (docs/plugins.md, installing)`);
  }
  return parseManifest(pkg.switchboard, {
    where: `the "switchboard" member of ${file}`,
    dir,
    entryKey: 'plugin',
    defaultEntry: () => (typeof pkg.main === 'string' ? pkg.main : (['index.ts', 'index.js'].find((name) => fs.existsSync(path.join(dir, name))) ?? 'index.js')),
    description: typeof pkg.description === 'string' ? pkg.description : undefined,
  });
}

/**
 * A package is a plugin when its package.json has a `switchboard` member, the manifest
 * a plugin folder keeps in plugin.json: `{ "id", "apiVersion", "dependsOn"?, "plugin"? }`.
 * `plugin` is the module to load, relative to the package; by default the package's own
 * entry (`exports`, else `main`), as `require(name)` would load it.
 */
export function readPackageManifest(source: PluginPackageSource): PluginManifest {
  const from = source.from ?? INSTALLATION_DIR;
  const dir = findPluginPackage(source.package, from);
  const file = path.join(dir, 'package.json');
  const pkg = readJsonFile(file, 'package manifest') as { switchboard?: unknown; description?: unknown };
  if (typeof pkg.switchboard !== 'object' || pkg.switchboard === null) {
    throw new BootError(`package "${source.package}" (${file}) has no "switchboard" member, so it is not a Switchboard plugin (docs/plugins.md, installing)`);
  }
  return parseManifest(pkg.switchboard, {
    where: `the "switchboard" member of ${file}`,
    dir,
    entryKey: 'plugin',
    defaultEntry: () => packageEntry(source.package, from),
    description: typeof pkg.description === 'string' ? pkg.description : undefined,
  });
}

function packageEntry(name: string, from: string): string {
  try {
    return createRequire(path.join(path.resolve(from), 'package.json')).resolve(name);
  } catch (error) {
    throw new BootError(`plugin package "${name}" names no "plugin" module in its "switchboard" member and has no entry of its own: ${(error as Error).message}`);
  }
}
