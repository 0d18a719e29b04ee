import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../errors/boot-error';

/**
 * `plugin.json` beside a plugin's code: what discovery reads to order plugins and
 * refuse bad sets before any plugin code runs.
 */
export interface PluginManifest {
  id: string;
  dependsOn: string[];
  description?: string;
  /** The plugin API version it was built for (`1.0`); see plugin-api-version.ts. */
  apiVersion?: string;
  /** Absolute path of the module whose default export is the plugin. */
  entry: string;
  /** Folder the manifest was found in (a package's folder for a plugin installed from npm). */
  dir: string;
}

export const MANIFEST_FILE = 'plugin.json';

/** Parses a JSON file, or says which one could not be read. */
export function readJsonFile(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new BootError(`cannot read ${what} ${file}: ${(error as Error).message}`);
  }
}

export function readManifest(dir: string): PluginManifest {
  const file = path.join(dir, MANIFEST_FILE);
  const raw = readJsonFile(file, 'plugin manifest');
  return parseManifest(raw, { where: `plugin manifest ${file}`, dir, entryKey: 'main', defaultEntry: () => findEntry(dir) });
}

/**
 * The manifest's members, checked: from a plugin.json, or from the `switchboard` member
 * of a package.json (plugin-package.ts), which names its entry `plugin`.
 */
export function parseManifest(raw: unknown, source: { where: string; dir: string; entryKey: string; defaultEntry: () => string; description?: string }): PluginManifest {
  const { where, dir } = source;
  const manifest = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof manifest.id !== 'string' || manifest.id === '') {
    throw new BootError(`${where} has no "id"`);
  }
  const dependsOn = manifest.dependsOn ?? [];
  if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== 'string')) {
    throw new BootError(`${where}: "dependsOn" must be a list of plugin ids`);
  }
  if (manifest.apiVersion !== undefined && typeof manifest.apiVersion !== 'string') {
    throw new BootError(`${where}: "apiVersion" must be a string such as "1.0"`);
  }
  const entry = manifest[source.entryKey];
  return {
    id: manifest.id,
    dependsOn: dependsOn as string[],
    description: typeof manifest.description === 'string' ? manifest.description : source.description,
    apiVersion: manifest.apiVersion,
    entry: path.resolve(dir, typeof entry === 'string' ? entry : source.defaultEntry()),
    dir,
  };
}

function findEntry(dir: string): string {
  for (const candidate of ['index.ts', 'index.js']) {
    if (fs.existsSync(path.join(dir, candidate))) return candidate;
  }
  throw new BootError(`plugin folder ${dir} has neither index.ts nor index.js (or a "main" in plugin.json)`);
}

/** Every folder directly below `root` that has a plugin.json. */
export function discoverPluginDirs(root: string): string[] {
  if (!fs.existsSync(root)) throw new BootError(`plugin folder ${root} does not exist (check PLUGINS_PATH)`);
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(root, entry.name, MANIFEST_FILE)))
    .map((entry) => path.join(root, entry.name))
    .sort();
}
