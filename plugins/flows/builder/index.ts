import type { AnyRoute } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';
import { deployRoutes } from './deploy-routes';
import { flowRoutes } from './flow-routes';
import { stepRoutes } from './step-routes';
import { stepTestRoute } from './step-test-route';
import { stepUpgradeRoute } from './step-upgrade-route';

/** The flow builder API: flows, their steps, deploy and undeploy, step tests and upgrades. */
export const builderRoutes = (runtime: FlowsRuntime): AnyRoute[] => [
  ...flowRoutes(runtime),
  ...stepRoutes(runtime),
  stepTestRoute(runtime),
  stepUpgradeRoute(runtime),
  ...deployRoutes(runtime),
];
