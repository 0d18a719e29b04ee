import { coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef } from '../agents';
import { FlowCatalog } from './app/flow-catalog';
import { flowApps, flowAppExtensions } from './app/flow-apps-point';
import { registerBuilderRoutes } from './builder';
import { registerCatalogRoutes } from './catalog';
import { connectionCredentials } from './connections/connection-secret';
import { registerEngine } from './engine';
import * as entities from './entities';
import { Migration0001Flows } from './migrations/0001-flows';
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
} from './app/flow-app';
export { flowTriggersRef, type FlowTriggers, type LiveTrigger } from './runs/flow-triggers';

export default definePlugin({
  id: 'flows',
  dependsOn: ['agents'],
  entities: Object.values(entities),
  migrations: [{ name: '0001-flows', class: Migration0001Flows }],
  config: {
    maxStepsPerFlow: { doc: 'Most steps one flow may have', format: 'nat', default: 200, env: 'FLOWS_MAX_STEPS_PER_FLOW' },
    executionRetentionDays: { doc: 'Executions older than this many days are deleted', format: 'nat', default: 30, env: 'FLOWS_EXECUTION_RETENTION_DAYS' },
    engineConcurrency: { doc: 'Execution segments one worker process runs at once', format: 'nat', default: 8, env: 'FLOWS_ENGINE_CONCURRENCY' },
  },
  provides: [flowApps, flowAppExtensions],
  services: [
    createServiceFactory({
      service: flowTriggersRef,
      deps: { orm: coreServices.orm, bus: coreServices.bus, tenants: coreServices.tenant },
      factory: (deps) => createFlowTriggers(deps),
    }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    orm: coreServices.orm,
    secrets: coreServices.secrets,
    egress: coreServices.egress,
    logger: coreServices.logger,
    lifecycle: coreServices.lifecycle,
    config: coreServices.config,
    tenants: coreServices.tenant,
    metrics: coreServices.metrics,
    quotas: coreServices.quotas,
    agents: agentDirectoryRef,
  },
  init(deps, { extensions }) {
    deps.secrets.declareColumn(connectionCredentials);
    const runtime = { ...deps, catalog: new FlowCatalog(extensions.items(flowApps), extensions.items(flowAppExtensions)) };
    registerCatalogRoutes(runtime);
    registerBuilderRoutes(runtime);
    registerEngine(runtime);
  },
});
