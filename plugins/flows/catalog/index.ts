import type { FlowsRuntime } from '../flows-runtime';
import { registerAppRoutes } from './app-routes';
import { registerConnectionRoutes } from './connection-routes';
import { registerOAuthRoutes } from './oauth-routes';
import { registerOptionsRoute } from './options-route';

/**
 * The flow catalog (apps, triggers, actions), app connections and option lists.
 * Registered before the builder's `/api/v1/flow/:uuid` routes, so `apps` and
 * `connections` are never read as a flow's uuid.
 */
export function registerCatalogRoutes(runtime: FlowsRuntime): void {
  registerAppRoutes(runtime);
  registerOptionsRoute(runtime);
  registerConnectionRoutes(runtime);
  registerOAuthRoutes(runtime);
}
