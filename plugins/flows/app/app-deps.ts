import { ContributedDeps, contributeWithDeps, contributedDepsRef, type ExtensionPoint } from '../../../core';
import type { FlowAppDefinition, FlowAppDeps, FlowAppExtension } from './flow-app';
import { flowAppExtensions, flowApps } from './flow-apps-point';

/** What names deps: an app, or an extension of an app by another plugin. */
export type DepsScope = FlowAppDefinition<any> | FlowAppExtension<any>;

export const describeScope = (scope: DepsScope): string => ('uid' in scope ? `flow app "${scope.uid}"` : `plugin "${scope.by}"'s extension of flow app "${scope.app}"`);

/**
 * The services each app (or app extension) named in its `deps`, handed over by the plugin
 * that contributes it: the core's `ContributedDeps`, one per kernel (a flows service).
 * App definitions are contributed before any plugin's init, so the flows plugin reads
 * these when app code runs, not when it builds its catalog.
 */
export type FlowAppDepsRegistry = ContributedDeps<DepsScope>;

/** A registry for the catalog of one kernel (or of a test that builds a catalog itself). */
export const flowAppDepsRegistry = (): FlowAppDepsRegistry => new ContributedDeps<DepsScope>(describeScope, 'contributeFlowApp(...)');

export const flowAppDepsRef = contributedDepsRef<DepsScope>('flows.appDeps');

/**
 * The `definePlugin` members of a plugin that adds a flow app (or extends one) whose
 * code names deps: the core's `contributeWithDeps` on the app's point. It contributes the
 * app, the kernel resolves the app's deps as this plugin's own (so a service of a plugin
 * missing from its `dependsOn` is a boot error, as for any dep), and its init hands them
 * to the flows plugin.
 *
 *   export default definePlugin({ ...contributeFlowApp(tablesApp) });   // id and dependsOn: plugin.json
 *
 * A plugin with an init of its own names `flowAppDepsRef` and the app's deps itself and
 * calls `provide(app, services)` from its init.
 */
export function contributeFlowApp<D extends FlowAppDeps>(item: FlowAppDefinition<D> | FlowAppExtension<D>) {
  // One registry holds apps and extensions alike; each is contributed to its own point.
  const point = ('uid' in item ? flowApps : flowAppExtensions) as ExtensionPoint<DepsScope>;
  return contributeWithDeps(point, item as DepsScope, flowAppDepsRef);
}
