import { createServiceRef, type Contribution, type ServiceRef } from '../../../core';
import type { FlowAppDefinition, FlowAppDeps, FlowAppExtension, ResolvedFlowAppDeps } from './flow-app';
import { flowAppExtensions, flowApps } from './flow-apps-point';

/** What names deps: an app, or an extension of an app by another plugin. */
export type DepsScope = FlowAppDefinition<any> | FlowAppExtension<any>;

export const describeScope = (scope: DepsScope): string => ('uid' in scope ? `flow app "${scope.uid}"` : `plugin "${scope.by}"'s extension of flow app "${scope.app}"`);

/**
 * The services each app (or app extension) named in its `deps`, handed over by the plugin
 * that contributes it. One per kernel (a flows service), so two kernels in one process
 * (tests) never share them. App definitions are contributed before any plugin's init, so
 * the flows plugin reads these when app code runs, not when it builds its catalog.
 */
export class FlowAppDepsRegistry {
  readonly #provided = new Map<DepsScope, Readonly<Record<string, unknown>>>();

  /** The resolved services of `scope`'s deps, from its plugin's init. */
  provide(scope: DepsScope, services: Record<string, unknown>): void {
    if (this.#provided.has(scope)) throw new Error(`${describeScope(scope)}: its deps were provided twice`);
    const absent = Object.keys(scope.deps ?? {}).filter((name) => services[name] === undefined);
    if (absent.length > 0) throw new Error(`${describeScope(scope)}: deps ${absent.join(', ')} were not provided`);
    this.#provided.set(scope, Object.freeze({ ...services }));
  }

  /** What app code of `scope` receives as `context.deps`. */
  of(scope: DepsScope): Readonly<Record<string, unknown>> {
    const services = this.#provided.get(scope);
    if (!services) throw new Error(`${describeScope(scope)} names deps its plugin never provided: contribute it with contributeFlowApp(...)`);
    return services;
  }

  /** Which of `scopes` name deps that nobody provided (the flows plugin refuses to start with any). */
  missing(scopes: readonly DepsScope[]): string[] {
    return scopes.filter((scope) => Object.keys(scope.deps ?? {}).length > 0 && !this.#provided.has(scope)).map(describeScope);
  }
}

export const flowAppDepsRef = createServiceRef<FlowAppDepsRegistry>('flows.appDeps');

/** The name the registry takes among the contributing plugin's deps. */
const REGISTRY = 'flowAppDeps';

type ContributingDeps<D extends FlowAppDeps> = D & { [REGISTRY]: ServiceRef<FlowAppDepsRegistry> };

/**
 * The `definePlugin` members of a plugin that adds a flow app (or extends one) whose
 * code names deps: it contributes the app, the kernel resolves the app's deps as this
 * plugin's own (so a service of a plugin missing from its `dependsOn` is a boot error,
 * as for any dep), and its init hands them to the flows plugin.
 *
 *   export default definePlugin({ ...contributeFlowApp(tablesApp) });   // id and dependsOn: plugin.json
 *
 * A plugin with an init of its own names `flowAppDepsRef` and the app's deps itself and
 * calls `provide(app, services)` from its init.
 */
export function contributeFlowApp<D extends FlowAppDeps>(item: FlowAppDefinition<D> | FlowAppExtension<D>) {
  const deps = (item.deps ?? {}) as D;
  if (REGISTRY in deps) throw new Error(`${describeScope(item)}: a dep may not be named "${REGISTRY}"`);
  const contribution: Contribution<any> = 'uid' in item ? flowApps.add(item as FlowAppDefinition) : flowAppExtensions.add(item as FlowAppExtension);
  return {
    contributes: [contribution],
    deps: { ...deps, [REGISTRY]: flowAppDepsRef } as ContributingDeps<D>,
    init(resolved: ResolvedFlowAppDeps<ContributingDeps<D>>): void {
      const { [REGISTRY]: registry, ...services } = resolved as Record<string, unknown>;
      (registry as FlowAppDepsRegistry).provide(item, services);
    },
  };
}
