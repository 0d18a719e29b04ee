import type { FlowsRuntime } from '../flows-runtime';
import { registerDeployRoutes } from './deploy-routes';
import { registerFlowRoutes } from './flow-routes';
import { registerStepRoutes } from './step-routes';
import { registerStepTestRoute } from './step-test-route';
import { registerStepUpgradeRoute } from './step-upgrade-route';

/** The flow builder API: flows, their steps, deploy and undeploy, step tests and upgrades. */
export function registerBuilderRoutes(runtime: FlowsRuntime): void {
  registerFlowRoutes(runtime);
  registerStepRoutes(runtime);
  registerStepTestRoute(runtime);
  registerStepUpgradeRoute(runtime);
  registerDeployRoutes(runtime);
}
