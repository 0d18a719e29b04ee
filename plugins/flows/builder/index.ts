import type { FlowsRuntime } from '../flows-runtime';
import { registerDeployRoutes } from './deploy-routes';
import { registerFlowRoutes } from './flow-routes';
import { registerStepRoutes } from './step-routes';
import { registerStepTestRoute } from './step-test-route';

/** The flow builder API: flows, their steps, deploy and undeploy, step tests. */
export function registerBuilderRoutes(runtime: FlowsRuntime): void {
  registerFlowRoutes(runtime);
  registerStepRoutes(runtime);
  registerStepTestRoute(runtime);
  registerDeployRoutes(runtime);
}
