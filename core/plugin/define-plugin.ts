import type { ConvictSchema } from '../config/convict-schema';
import type { Contribution, ExtensionPoint, ExtensionRegistry } from './extension-point';
import type { DepsMap, ResolvedDeps, ServiceFactory } from './service-ref';

export const PLUGIN_BRAND = Symbol.for('switchboard.plugin');

/** A MikroORM migration class, named so its run is recorded once per database. */
export interface PluginMigration {
  name: string;
  class: new (...args: any[]) => unknown;
}

export interface PluginContext {
  readonly pluginId: string;
  readonly extensions: ExtensionRegistry;
}

export interface PluginDefinition<D extends DepsMap = DepsMap> {
  /**
   * Lower-case id. A plugin in a folder or an npm package leaves it out: its manifest
   * (plugin.json, or the package's `switchboard` member) is the one source, read before
   * any code runs. Only a plugin made in code and given to the kernel as it is (a test's) says it here.
   */
  id?: string;
  /** Plugins that must be registered and initialised first; as `id`, from the manifest for a plugin in a folder or a package. */
  dependsOn?: string[];
  /** MikroORM entity classes this plugin owns. */
  entities?: Function[];
  /** This plugin's migrations, oldest first. */
  migrations?: PluginMigration[];
  /** The plugin's convict config slice, validated at boot and read under `config.<id>`. */
  config?: ConvictSchema;
  /** Extension points this plugin owns. */
  provides?: ExtensionPoint<any>[];
  /** Items this plugin adds to other plugins' extension points. */
  contributes?: Contribution<any>[];
  /** Services this plugin offers to the plugins that depend on it. */
  services?: ServiceFactory<any, any>[];
  /** The services `init` receives, by name. */
  deps?: D;
  init?(deps: ResolvedDeps<D>, context: PluginContext): void | Promise<void>;
  /**
   * Checks what plugins contributed to this plugin's extension points, with no database
   * and no server: each problem as a sentence naming what is wrong, none `[]`.
   * `switchboard plugin check` runs it (the flows plugin checks flow apps this way); the
   * boot finds the same problems later, in the owner's `init`.
   */
  checkContributions?(extensions: ExtensionRegistry): string[];
}

export interface Plugin<D extends DepsMap = DepsMap> extends PluginDefinition<D> {
  readonly [PLUGIN_BRAND]: true;
}

/** A plugin as the kernel runs it: its id and dependencies known (from its manifest, or from its code). */
export type NamedPlugin<D extends DepsMap = DepsMap> = Plugin<D> & { readonly id: string; readonly dependsOn: string[] };

/** A plugin id: lower-case letters, digits and dashes, starting with a letter, at most 63 characters. */
export const PLUGIN_ID = /^[a-z][a-z0-9-]{0,62}$/;

export function definePlugin<D extends DepsMap = {}>(definition: PluginDefinition<D>): Plugin<D> {
  if (definition.id !== undefined && !PLUGIN_ID.test(definition.id)) {
    throw new Error(`plugin id "${definition.id}" must be lower-case letters, digits and dashes, starting with a letter`);
  }
  return Object.freeze({ ...definition, [PLUGIN_BRAND]: true as const });
}

/** Branded check: works across copies of this module, never trusts constructor names. */
export function isPlugin(value: unknown): value is Plugin {
  return typeof value === 'object' && value !== null && (value as Plugin)[PLUGIN_BRAND] === true;
}
