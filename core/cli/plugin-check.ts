import path from 'node:path';
import { loadConfig } from '../config/load-config';
import { BootError } from '../errors/boot-error';
import { checkDeps, collectServiceProviders } from '../kernel/kernel';
import { llmProviders } from '../llm/llm-extension';
import { collectExtensions } from '../plugin/extension-registry';
import { checkApiVersion } from '../plugin/plugin-api-version';
import { MANIFEST_FILE, type PluginManifest } from '../plugin/plugin-manifest';
import { INSTALLATION_DIR, isPackageSource, readFolderManifest, readPackageManifest } from '../plugin/plugin-package';
import { installedPlugins, loadPlugins, type LoadedPlugin, type PluginSource } from '../plugin/plugin-source';
import { idRuleProblem } from './plugin-new';

/**
 * `switchboard plugin check`: what would stop a plugin folder from booting in this
 * installation, found without a server or a database. The boot's own steps, in its
 * order: the manifest (before any plugin code runs), then the module with the installed
 * plugins it depends on, its config slice, the extension points, the deps, and last
 * what the owners of the points it contributes to check (`checkContributions`: the
 * flows plugin checks flow apps as its catalog does at boot).
 */

export interface PluginSettings {
  pluginsPath: string[];
  pluginsPackages: string[];
  disabledPlugins: string[];
}

export interface PluginCheck {
  /** The manifest's id, when it could be read. */
  id: string | null;
  dir: string;
  problems: string[];
}

interface Installed {
  source: PluginSource;
  manifest: PluginManifest;
}

/** BootErrors are the problems; anything else is a failure of the check itself. */
function attempt(problems: string[], check: () => void): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (!(error instanceof BootError)) throw error;
    problems.push(error.message);
    return false;
  }
}

function manifestProblems(manifest: PluginManifest): string[] {
  const idProblem = idRuleProblem(manifest.id);
  const problems = idProblem ? [`${path.join(manifest.dir, MANIFEST_FILE)}: ${idProblem}`] : [];
  const builtIn = path.dirname(manifest.dir) === path.join(INSTALLATION_DIR, 'plugins');
  if (!(builtIn && manifest.apiVersion === undefined)) attempt(problems, () => checkApiVersion({ id: manifest.id, origin: manifest.dir, apiVersion: manifest.apiVersion }));
  return problems;
}

/** The installed plugins' manifests (one that cannot be read is left out: it matters only if depended on, and is then reported missing). */
function installedManifests(settings: PluginSettings): Installed[] {
  return installedPlugins(INSTALLATION_DIR, settings).flatMap((source) => {
    try {
      const manifest = isPackageSource(source) ? readPackageManifest(source) : readFolderManifest(path.resolve(source as string));
      return [{ source, manifest }];
    } catch {
      return [];
    }
  });
}

/** The installed plugins `manifest` depends on, directly or not, in installation order; or the problems of the ids that are not there. */
function dependencies(manifest: PluginManifest, settings: PluginSettings): { sources: PluginSource[]; problems: string[] } {
  const installed = installedManifests(settings).filter((entry) => path.resolve(entry.manifest.dir) !== path.resolve(manifest.dir));
  const problems = installed.filter((entry) => entry.manifest.id === manifest.id).map((entry) => `plugin id "${manifest.id}" is also the id of the installed plugin in ${entry.manifest.dir}: the boot refuses both`);
  const byId = new Map(installed.map((entry) => [entry.manifest.id, entry]));
  const needed = new Set<string>();
  const visit = (of: PluginManifest) => {
    for (const id of of.dependsOn) {
      if (needed.has(id)) continue;
      const entry = byId.get(id);
      if (!entry) problems.push(`plugin "${of.id}" depends on "${id}", which is not installed (neither built in nor in PLUGINS_PATH or PLUGINS_PACKAGES)`);
      else if (settings.disabledPlugins.includes(id)) problems.push(`plugin "${of.id}" depends on "${id}", which DISABLED_PLUGINS leaves out`);
      else {
        needed.add(id);
        visit(entry.manifest);
      }
    }
  };
  visit(manifest);
  return { sources: installed.filter((entry) => needed.has(entry.manifest.id)).map((entry) => entry.source), problems };
}

/** The plugin's config slice with its defaults, alone: no environment, no config file. */
function configProblems(plugin: LoadedPlugin['plugin']): string[] {
  const problems: string[] = [];
  if (plugin.config) attempt(problems, () => loadConfig({ env: {}, configDir: path.join(INSTALLATION_DIR, 'config', '.none'), pluginSlices: { [plugin.id]: plugin.config! } }));
  return problems;
}

/** What the owners of extension points find in the contributions (`checkContributions`). */
function contributionProblems(loaded: LoadedPlugin[]): string[] {
  const problems: string[] = [];
  let extensions!: ReturnType<typeof collectExtensions>;
  if (!attempt(problems, () => (extensions = collectExtensions(loaded, [llmProviders])))) return problems;
  attempt(problems, () => checkDeps(loaded, collectServiceProviders(loaded)));
  for (const { plugin } of loaded) {
    try {
      problems.push(...(plugin.checkContributions?.(extensions) ?? []));
    } catch (error) {
      problems.push(`plugin "${plugin.id}" could not check the contributions to its extension points: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

/** Every problem that would stop the plugin in `dir` from booting here; none when it would boot. */
export function checkPlugin(dir: string, settings: PluginSettings): PluginCheck {
  const folder = path.resolve(dir);
  let manifest!: PluginManifest;
  const problems: string[] = [];
  // A plugin folder, or a folder shaped as its npm package (package.json's `switchboard` member).
  if (!attempt(problems, () => (manifest = readFolderManifest(folder)))) return { id: null, dir: folder, problems };
  const result = { id: manifest.id, dir: folder, problems };

  // As at boot, nothing of the plugin runs while its manifest is wrong.
  const needed = dependencies(manifest, settings);
  problems.push(...manifestProblems(manifest), ...needed.problems);
  if (problems.length > 0) return result;

  let loaded: LoadedPlugin[] = [];
  if (!attempt(problems, () => (loaded = loadPlugins([...needed.sources, folder])))) return result;
  const plugin = loaded.find((entry) => entry.origin === folder)!.plugin;
  problems.push(...configProblems(plugin), ...contributionProblems(loaded));
  return result;
}
