import { configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { flowsConfig } from './flows-config';
import { agentDirectoryRef } from '../agents';
import { flowAppDepsRef, flowAppDepsRegistry } from './app/app-deps';
import { FlowCatalog } from './app/flow-catalog';
import { flowAppProblems } from './app/flow-app-problems';
import { flowApps, flowAppExtensions } from './app/flow-apps-point';
import { builderRoutes } from './builder';
import { catalogRoutes } from './catalog';
import { oauthVerifier } from './catalog/oauth-routes';
import { connectionCredentials } from './connections/connection-secret';
import { createFlowActions, flowActionsRef, flowsRuntimeSlot, flowsRuntimeSlotRef } from './connections/flow-actions';
import { executionRoutes, registerEngine } from './engine';
import * as entities from './entities';
import { Migration0001Flows } from './migrations/0001-flows';
import { ConnectionTokens } from './connections/connection-tokens';
import type { ConfigReader } from './connections/oauth-client';
import type { FlowsRuntime } from './flows-runtime';
import { Migration0004OAuthConnections } from './migrations/0004-oauth-connections';
import { Migration0002TriggerCursors } from './migrations/0002-trigger-cursors';
import { Migration0003StepVersions } from './migrations/0003-step-versions';
import { createFlowTriggers } from './runs/create-flow-triggers';
import { flowTriggersRef } from './runs/flow-triggers';

// The public API of the flows plugin: what app plugins import.
export { flowApps, flowAppExtensions } from './app/flow-apps-point';
export {
  defineFlowApp,
  defineFlowAppExtension,
  type FlowAppExtension,
  defineAction,
  defineTrigger,
  defineOptions,
  type FlowAppDefinition,
  type FlowAppCategory,
  type FlowAppAuth,
  type FlowAppContext,
  type FlowActionDefinition,
  type FlowTriggerDefinition,
  type OptionsProviderDefinition,
  type OptionsResult,
  type OptionsLoadContext,
  type FlowOption,
  type ActionContext,
  type TriggerLifecycleContext,
  type FlowConnectionValue,
  type FlowStepRef,
  type FlowAppDeps,
  type ResolvedFlowAppDeps,
  type DepsContext,
  type FlowTriggerEvent,
  type TriggerEventContext,
  type FlowTriggerPoll,
  type TriggerPollContext,
  type PollResult,
  type VendorCallContext,
} from './app/flow-app';
export { VendorError, vendorError, expectOk, retryAfterSeconds } from './app/vendor-error';
export { ConnectionNeedsReauth, type ConnectionHttp, type TokenKeeper } from './connections/connection-http';
export { contributeFlowApp, flowAppDepsRef, type FlowAppDepsRegistry } from './app/app-deps';
export {
  Auth,
  type ApiKeyAuth,
  type BasicAuth,
  type OAuth2Auth,
  type CustomAuth,
  type CredentialsOf,
  type AuthTestContext,
  type AuthTestResult,
  type RequestAuthorization,
} from './app/auth';
export { Options, type OptionLink } from './app/option-link';
export { flowTriggersRef, flowCause, type FlowTriggers, type LiveTrigger } from './runs/flow-triggers';
export { flowActionsRef, type FlowActions, type FlowActionRunOptions, type FlowConnectionInfo } from './connections/flow-actions';

/**
 * An app's own config, which it names as `deps.config` (its plugin's `configRef`): where
 * its OAuth client and `{configKey}` URLs are read. Undefined for a key it lacks.
 */
function appConfigReader(catalog: FlowCatalog): (appUid: string) => ConfigReader {
  return (appUid) => (key) => {
    try {
      return (catalog.appDeps(appUid)?.config as { get(key: string): unknown } | undefined)?.get(key);
    } catch {
      return undefined;
    }
  };
}

export default definePlugin({
  entities: Object.values(entities),
  migrations: [
    { name: '0001-flows', class: Migration0001Flows },
    { name: '0002-trigger-cursors', class: Migration0002TriggerCursors },
    { name: '0003-step-versions', class: Migration0003StepVersions },
    { name: '0004-oauth-connections', class: Migration0004OAuthConnections },
  ],
  config: flowsConfig,
  provides: [flowApps, flowAppExtensions],
  // `switchboard plugin check`: the catalog's checks of every installed app, before any server or database.
  checkContributions: (extensions) => flowAppProblems(extensions.items(flowApps), extensions.items(flowAppExtensions)),
  services: [
    createServiceFactory({
      service: flowTriggersRef,
      deps: { orm: coreServices.orm, bus: coreServices.bus, tenants: coreServices.tenant },
      factory: (deps) => createFlowTriggers(deps),
    }),
    // One per kernel: where app plugins hand over the services their apps name in `deps`.
    createServiceFactory({ service: flowAppDepsRef, deps: {}, factory: flowAppDepsRegistry }),
    // Other plugins' calls of one action with a connection, outside any flow; the runtime comes from init, through the slot.
    createServiceFactory({ service: flowsRuntimeSlotRef, deps: {}, factory: flowsRuntimeSlot }),
    createServiceFactory({ service: flowActionsRef, deps: { slot: flowsRuntimeSlotRef }, factory: ({ slot }) => createFlowActions(slot) }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    orm: coreServices.orm,
    secrets: coreServices.secrets,
    egress: coreServices.egress,
    logger: coreServices.logger,
    lifecycle: coreServices.lifecycle,
    config: configRef(flowsConfig),
    tenants: coreServices.tenant,
    metrics: coreServices.metrics,
    quotas: coreServices.quotas,
    agents: agentDirectoryRef,
    appDeps: flowAppDepsRef,
    runtimeSlot: flowsRuntimeSlotRef,
  },
  init(deps, { extensions }) {
    deps.secrets.declareColumn(connectionCredentials);
    deps.secrets.declareColumn(oauthVerifier);
    const catalog = new FlowCatalog(extensions.items(flowApps), extensions.items(flowAppExtensions), deps.appDeps);
    const appConfig = appConfigReader(catalog);
    const tokens = new ConnectionTokens({ ...deps, catalog, appConfig });
    const runtime: FlowsRuntime = { ...deps, catalog, appConfig, tokens };
    deps.runtimeSlot.set(runtime);
    // App plugins hand their deps over in their own init, after this one.
    deps.lifecycle.onStart(() => runtime.catalog.assertDepsProvided());
    // In this order: the catalog's static `/api/v1/flow/apps/...` and `/api/v1/flow/connections/...` before the builder's `/api/v1/flow/:uuid...`.
    for (const route of [...catalogRoutes(runtime), ...builderRoutes(runtime), ...executionRoutes]) deps.http.route(route);
    registerEngine(runtime);
  },
});
