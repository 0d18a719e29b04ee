import fs from 'node:fs';
import path from 'node:path';
import { coreConfigSchema } from '../config/config-schema';
import { PLUGIN_ID } from '../plugin/define-plugin';
import { parseApiVersion, PLUGIN_API_VERSION } from '../plugin/plugin-api-version';
import { discoverPluginDirs, MANIFEST_FILE, readManifest } from '../plugin/plugin-manifest';
import { INSTALLATION_DIR } from '../plugin/plugin-package';
import { CommandRefused } from './command-refused';

/**
 * `switchboard plugin new`: a plugin folder copied from a template of plugin-templates/,
 * which is a working plugin written for the id `acme-leads` (the repository's type check
 * covers it). Every spelling of that id is replaced with the new id's, so the copy loads
 * and passes its own tests at once.
 */

const TEMPLATES = path.join(__dirname, 'plugin-templates');
const TEMPLATE_ID = 'acme-leads';

export type PluginKind = 'plugin' | 'flow-app';

export interface NewPluginOptions {
  id: string;
  kind: PluginKind;
  /** The plugin's folder; by default defaultPluginDir(). */
  dir?: string;
  /** Where a relative `dir` and the default folder are taken from. */
  cwd: string;
  /** PLUGINS_PATH: its first folder is the default parent. */
  pluginsPath: readonly string[];
}

/** The id as each kind of name in the templates spells it: `acme-leads`, `acme_leads`, `acmeLeads`, `AcmeLeads`, `Acme Leads`, `ACME_LEADS`. */
export function spellingsOf(id: string): Record<string, string> {
  const words = id.split('-').filter(Boolean);
  const capital = (word: string) => word[0].toUpperCase() + word.slice(1);
  return {
    kebab: id,
    snake: id.replace(/-/g, '_'),
    camel: words[0] + words.slice(1).map(capital).join(''),
    pascal: words.map(capital).join(''),
    title: words.map(capital).join(' '),
    constant: id.replace(/-/g, '_').toUpperCase(),
  };
}

/** The template's spellings of its id, each replaced by the new id's same spelling. */
function renamer(id: string): (text: string) => string {
  const from = spellingsOf(TEMPLATE_ID);
  const to = spellingsOf(id);
  const replacements = new Map(Object.keys(from).map((spelling) => [from[spelling], to[spelling]]));
  const pattern = new RegExp([...replacements.keys()].map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return (text) => text.replace(pattern, (found) => replacements.get(found)!);
}

/** `<first PLUGINS_PATH folder>/<id>`, so the current settings load it; else `./plugins-local/<id>` (then set PLUGINS_PATH=plugins-local). */
export function defaultPluginDir(id: string, cwd: string, pluginsPath: readonly string[]): string {
  return path.resolve(cwd, pluginsPath[0] ?? 'plugins-local', id);
}

/** The folders of the installation's plugins whose manifests say `id`: an id taken would stop the boot as a duplicate. */
function installedWithId(id: string, pluginsPath: readonly string[], cwd: string): string[] {
  const roots = [path.join(INSTALLATION_DIR, 'plugins'), ...pluginsPath.map((folder) => path.resolve(cwd, folder))].filter((root) => fs.existsSync(root));
  return roots.flatMap(discoverPluginDirs).filter((dir) => {
    try {
      return readManifest(dir).id === id;
    } catch {
      return false;
    }
  });
}

/** Why `id` cannot name a plugin at all, or null (plugin check says the same of a manifest's). */
export function idRuleProblem(id: string): string | null {
  if (!PLUGIN_ID.test(id)) return `plugin id "${id}" must be lower-case letters, digits and dashes, starting with a letter, at most 63 characters`;
  if (id in coreConfigSchema) return `plugin id "${id}" is the name of a core setting, under which the plugin's own settings would go: choose another`;
  return null;
}

/** Why `id` cannot name a new plugin here, or null. */
function idProblem(id: string, pluginsPath: readonly string[], cwd: string): string | null {
  const broken = idRuleProblem(id);
  if (broken) return broken;
  const taken = installedWithId(id, pluginsPath, cwd);
  if (taken.length > 0) return `plugin id "${id}" is taken by the installed plugin in ${taken[0]}`;
  return null;
}

/** Paths in tsconfig.json are relative to it, written with forward slashes. */
const relativeTo = (dir: string) => (target: string) => {
  const relative = path.relative(dir, path.join(INSTALLATION_DIR, target)).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

/**
 * The plugin's own tsconfig.json (`npx tsc -p <dir>`): the installation's compiler options,
 * its type packages, and `switchboard/*` mapped to the installation's files as its
 * package.json `exports` map them, so the check works wherever the folder is.
 */
function tsconfigFor(dir: string): object {
  const installation = relativeTo(dir);
  const { exports: exported } = JSON.parse(fs.readFileSync(path.join(INSTALLATION_DIR, 'package.json'), 'utf8')) as { exports: Record<string, string> };
  const paths = Object.fromEntries(
    Object.entries(exported)
      .filter(([subpath, target]) => subpath !== '.' && target.endsWith('.ts'))
      .map(([subpath, target]) => [`switchboard${subpath.slice(1)}`, [installation(target)]]),
  );
  return { extends: installation('tsconfig.json'), compilerOptions: { typeRoots: [installation('node_modules/@types')], paths }, include: ['.'] };
}

function filesOf(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesOf(path.join(dir, entry.name)).map((file) => path.join(entry.name, file)) : [entry.name]));
}

/**
 * Writes the new plugin's folder and answers it with the files written (relative to it).
 * Refuses (CommandRefused) an id that cannot be used and a folder that already exists,
 * before writing anything.
 */
export function newPlugin(options: NewPluginOptions): { dir: string; files: string[] } {
  const problem = idProblem(options.id, options.pluginsPath, options.cwd);
  if (problem) throw new CommandRefused(problem);
  const dir = options.dir ? path.resolve(options.cwd, options.dir) : defaultPluginDir(options.id, options.cwd, options.pluginsPath);
  if (fs.existsSync(dir)) throw new CommandRefused(`${dir} already exists: remove it or choose another folder with --dir`);

  const template = path.join(TEMPLATES, options.kind);
  const rename = renamer(options.id);
  const files = filesOf(template).map((file) => {
    const target = path.join(dir, rename(file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, rename(fs.readFileSync(path.join(template, file), 'utf8')));
    return path.relative(dir, target);
  });

  const manifestFile = path.join(dir, MANIFEST_FILE);
  const { major, minor } = parseApiVersion(PLUGIN_API_VERSION)!;
  const manifest = { ...JSON.parse(fs.readFileSync(manifestFile, 'utf8')), apiVersion: `${major}.${minor}` };
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfigFor(dir), null, 2)}\n`);
  return { dir, files: [...files, 'tsconfig.json'].sort() };
}
