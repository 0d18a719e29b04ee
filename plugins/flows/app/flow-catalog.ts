import { BootError } from '../../../core';
import { flowAppDepsRegistry, type FlowAppDepsRegistry } from './app-deps';
import { checkAuth } from './auth';
import { bindDefinitions } from './bound-definitions';
import { groupVersions, type Versions } from './definition-versions';
import type { FlowActionDefinition, FlowAppDefinition, FlowAppExtension, FlowTriggerDefinition, OptionsProviderDefinition } from './flow-app';
import { checkOptionLinks } from './option-link';
import { checkTriggerSources } from './trigger-sources';

/** A catalog item as the API shows it (spec: Flow app). */
export interface FlowAppSummary {
  uid: string;
  name: string;
  description: string;
  icon: string;
  category: FlowAppDefinition['category'];
  supports_trigger: boolean;
  supports_action: boolean;
  requires_connection: boolean;
  /** The app's release (informational); null when it declares none. */
  version: string | null;
  triggers_count: number;
  actions_count: number;
}

const UID = /^[a-z][a-z0-9_]{0,62}$/;
const KEY = /^[a-z][a-z0-9_]{0,62}$/;
/** Semantic versioning 2.0's form, without its rule against leading zeros. */
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function checkUnique(app: string, what: string, keys: string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (!KEY.test(key)) throw new BootError(`flow app "${app}": ${what} key "${key}" must be a-z, 0-9 and _, starting with a letter`);
    if (seen.has(key)) throw new BootError(`flow app "${app}" declares ${what} "${key}" twice`);
    seen.add(key);
  }
}

/** Refuses at boot an app the studio could not use, naming the app and the problem. */
function checkApp(app: FlowAppDefinition): void {
  if (!UID.test(app.uid)) throw new BootError(`flow app uid "${app.uid}" must be a-z, 0-9 and _, starting with a letter`);
  if (app.uid === 'supports') throw new BootError('flow app uid "supports" is reserved: /api/v1/flow/apps/supports/... lists apps by what they support');
  if (app.category === 'connect' && !app.auth) throw new BootError(`flow app "${app.uid}" is a connect app and needs an auth schema for its connections`);
  if (app.category === 'builtin' && app.auth) throw new BootError(`flow app "${app.uid}" is builtin and takes no connection, so it cannot declare auth`);
  if (app.version !== undefined && !SEMVER.test(app.version)) throw new BootError(`flow app "${app.uid}": version "${app.version}" is not a semantic version such as 1.4.0`);
  // Versions of one key share it (groupVersions refuses a (key, version) twice).
  checkUnique(app.uid, 'trigger', [...new Set((app.triggers ?? []).map((trigger) => trigger.key))]);
  checkUnique(app.uid, 'action', [...new Set((app.actions ?? []).map((action) => action.key))]);
  checkUnique(app.uid, 'options kind', (app.options ?? []).map((provider) => provider.kind));
  for (const action of app.actions ?? []) {
    if (action.branches && action.branches.length === 0) throw new BootError(`flow app "${app.uid}": action "${action.key}" declares an empty branches list`);
  }
  checkAuth(app);
  checkOptionLinks(app);
  checkTriggerSources(app);
}

/**
 * The apps with what other plugins added to them, each part bound to the deps of whoever
 * declared it (bound-definitions.ts); the checks of `checkApp` then see the merged app (a key added twice included).
 */
function withExtensions(apps: readonly FlowAppDefinition[], extensions: readonly FlowAppExtension[], deps: FlowAppDepsRegistry): FlowAppDefinition[] {
  const merged = new Map(apps.map((app) => [app.uid, { ...app, ...bindDefinitions(app, app.uid, deps) }]));
  for (const extension of extensions) {
    const app = merged.get(extension.app);
    if (!app) throw new BootError(`plugin "${extension.by}" extends flow app "${extension.app}", which no installed plugin provides`);
    const taken = (what: string, have: Array<{ key: string }> | undefined, added: Array<{ key: string }> | undefined) => {
      const clash = added?.find((item) => have?.some((existing) => existing.key === item.key));
      if (clash) throw new BootError(`plugin "${extension.by}" adds ${what} "${clash.key}" to flow app "${extension.app}", which already has one`);
    };
    taken('trigger', app.triggers, extension.triggers);
    taken('action', app.actions, extension.actions);
    taken('options kind', app.options?.map((provider) => ({ key: provider.kind })), extension.options?.map((provider) => ({ key: provider.kind })));
    const added = bindDefinitions(extension, extension.app, deps);
    app.triggers = [...(app.triggers ?? []), ...added.triggers];
    app.actions = [...(app.actions ?? []), ...added.actions];
    app.options = [...(app.options ?? []), ...added.options];
  }
  return [...merged.values()];
}

/** Every app the installed plugins added to `flowApps`, checked once at boot, with the lookups the routes and the engine share. */
export class FlowCatalog {
  /** Each app with the newest version of each trigger and action (what new steps get). */
  readonly #apps = new Map<string, FlowAppDefinition>();
  /** Every version, by app uid, then key (the engine looks one up per step: no key string is built). */
  readonly #triggers = new Map<string, Map<string, Versions<FlowTriggerDefinition>>>();
  readonly #actions = new Map<string, Map<string, Versions<FlowActionDefinition>>>();
  readonly #unbound: () => string[];
  readonly #depsOf: (uid: string) => Readonly<Record<string, unknown>> | null;

  /** `deps`: where the plugins contributing the apps and extensions hand over the services they name. */
  constructor(apps: readonly FlowAppDefinition[], extensions: readonly FlowAppExtension[] = [], deps: FlowAppDepsRegistry = flowAppDepsRegistry()) {
    for (const app of withExtensions(apps, extensions, deps)) {
      checkApp(app);
      const triggers = groupVersions(app.uid, 'trigger', app.triggers ?? []);
      const actions = groupVersions(app.uid, 'action', app.actions ?? []);
      this.#triggers.set(app.uid, triggers);
      this.#actions.set(app.uid, actions);
      this.#apps.set(app.uid, { ...app, triggers: [...triggers.values()].map((v) => v.newest), actions: [...actions.values()].map((v) => v.newest) });
    }
    this.#unbound = () => deps.missing([...apps, ...extensions]);
    const originals = new Map(apps.map((app) => [app.uid, app]));
    this.#depsOf = (uid) => {
      const app = originals.get(uid);
      return app && Object.keys(app.deps ?? {}).length > 0 ? deps.of(app) : null;
    };
  }

  /** The services an app named in its own `deps`, as its plugin handed them over; null when it names none. */
  appDeps(uid: string): Readonly<Record<string, unknown>> | null {
    return this.#depsOf(uid);
  }

  /** Refuses to start while an app or extension names deps its plugin did not hand over (its code would fail at its first use). */
  assertDepsProvided(): void {
    const unbound = this.#unbound();
    if (unbound.length > 0) throw new BootError(`${unbound.join('; ')}: deps named but never provided (contribute with contributeFlowApp(...))`);
  }

  /** Apps sorted by name. */
  list(): FlowAppDefinition[] {
    return [...this.#apps.values()].sort((a, b) => a.name.localeCompare(b.name) || a.uid.localeCompare(b.uid));
  }

  app(uid: string): FlowAppDefinition | undefined {
    return this.#apps.get(uid);
  }

  /** The trigger at `version`, the newest without one; undefined when the app does not list it (any more). */
  trigger(uid: string, key: string, version?: number): FlowTriggerDefinition | undefined {
    const versions = this.#triggers.get(uid)?.get(key);
    return version === undefined ? versions?.newest : versions?.byVersion.get(version);
  }

  /** The action at `version`, the newest without one; undefined when the app does not list it (any more). */
  action(uid: string, key: string, version?: number): FlowActionDefinition | undefined {
    const versions = this.#actions.get(uid)?.get(key);
    return version === undefined ? versions?.newest : versions?.byVersion.get(version);
  }

  /** Every version of a trigger or action the app lists. */
  versions(what: 'trigger' | 'action', uid: string, key: string): Versions | undefined {
    return (what === 'trigger' ? this.#triggers : this.#actions).get(uid)?.get(key);
  }

  options(uid: string, kind: string): OptionsProviderDefinition | undefined {
    return this.#apps.get(uid)?.options?.find((provider) => provider.kind === kind);
  }

  /** The branch keys of a step's action, in display order; none for triggers and plain actions. */
  branchesOf(step: { appUid: string; actionKey: string | null }): readonly string[] {
    return step.actionKey ? (this.action(step.appUid, step.actionKey)?.branches ?? []) : [];
  }

  summary(app: FlowAppDefinition): FlowAppSummary {
    const triggers = app.triggers?.length ?? 0;
    const actions = app.actions?.length ?? 0;
    return {
      uid: app.uid,
      name: app.name,
      description: app.description,
      icon: app.icon,
      category: app.category,
      supports_trigger: triggers > 0,
      supports_action: actions > 0,
      requires_connection: app.category === 'connect',
      version: app.version ?? null,
      triggers_count: triggers,
      actions_count: actions,
    };
  }
}
