import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../kernel/boot-error';

/**
 * `plugin.json` beside a plugin's code: what discovery reads to order plugins and
 * refuse bad sets before any plugin code runs.
 */
export interface PluginManifest {
  id: string;
  dependsOn: string[];
  description?: string;
  /** Absolute path of the module whose default export is the plugin. */
  entry: string;
  /** Folder the manifest was found in. */
  dir: string;
}

export const MANIFEST_FILE = 'plugin.json';

export function readManifest(dir: string): PluginManifest {
  const file = path.join(dir, MANIFEST_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new BootError(`cannot read plugin manifest ${file}: ${(error as Error).message}`);
  }
  const manifest = raw as Partial<{ id: unknown; dependsOn: unknown; description: unknown; main: unknown }>;
  if (typeof manifest.id !== 'string' || manifest.id === '') {
    throw new BootError(`plugin manifest ${file} has no "id"`);
  }
  const dependsOn = manifest.dependsOn ?? [];
  if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== 'string')) {
    throw new BootError(`plugin manifest ${file}: "dependsOn" must be a list of plugin ids`);
  }
  const main = typeof manifest.main === 'string' ? manifest.main : findEntry(dir);
  return {
    id: manifest.id,
    dependsOn: dependsOn as string[],
    description: typeof manifest.description === 'string' ? manifest.description : undefined,
    entry: path.resolve(dir, main),
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
