import { BootError } from '../../../core';
import type { FlowActionDefinition, FlowAppDefinition, FlowAppExtension, FlowTriggerDefinition, OptionsProviderDefinition } from './flow-app';

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
  triggers_count: number;
  actions_count: number;
}

const UID = /^[a-z][a-z0-9_]{0,62}$/;
const KEY = /^[a-z][a-z0-9_]{0,62}$/;

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
  checkUnique(app.uid, 'trigger', (app.triggers ?? []).map((trigger) => trigger.key));
  checkUnique(app.uid, 'action', (app.actions ?? []).map((action) => action.key));
  checkUnique(app.uid, 'options kind', (app.options ?? []).map((provider) => provider.kind));
  for (const action of app.actions ?? []) {
    if (action.branches && action.branches.length === 0) throw new BootError(`flow app "${app.uid}": action "${action.key}" declares an empty branches list`);
  }
}

/** The apps with what other plugins added to them; the checks of `checkApp` then see the merged app (a key added twice included). */
function withExtensions(apps: readonly FlowAppDefinition[], extensions: readonly FlowAppExtension[]): FlowAppDefinition[] {
  const merged = new Map(apps.map((app) => [app.uid, { ...app }]));
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
    app.triggers = [...(app.triggers ?? []), ...(extension.triggers ?? [])];
    app.actions = [...(app.actions ?? []), ...(extension.actions ?? [])];
    app.options = [...(app.options ?? []), ...(extension.options ?? [])];
  }
  return [...merged.values()];
}

/** Every app the installed plugins added to `flowApps`, checked once at boot, with the lookups the routes and the engine share. */
export class FlowCatalog {
  readonly #apps = new Map<string, FlowAppDefinition>();

  constructor(apps: readonly FlowAppDefinition[], extensions: readonly FlowAppExtension[] = []) {
    for (const app of withExtensions(apps, extensions)) {
      checkApp(app);
      this.#apps.set(app.uid, app);
    }
  }

  /** Apps sorted by name. */
  list(): FlowAppDefinition[] {
    return [...this.#apps.values()].sort((a, b) => a.name.localeCompare(b.name) || a.uid.localeCompare(b.uid));
  }

  app(uid: string): FlowAppDefinition | undefined {
    return this.#apps.get(uid);
  }

  trigger(uid: string, key: string): FlowTriggerDefinition | undefined {
    return this.#apps.get(uid)?.triggers?.find((trigger) => trigger.key === key);
  }

  action(uid: string, key: string): FlowActionDefinition | undefined {
    return this.#apps.get(uid)?.actions?.find((action) => action.key === key);
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
      triggers_count: triggers,
      actions_count: actions,
    };
  }
}
