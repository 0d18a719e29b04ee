import type { AnyRoute } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';
import { appRoutes } from './app-routes';
import { connectionRoutes } from './connection-routes';
import { oauthRoutes } from './oauth-routes';
import { optionsRoute } from './options-route';

/**
 * The flow catalog (apps, triggers, actions), app connections and option lists.
 * Registered before the builder's `/api/v1/flow/:uuid` routes, so `apps` and
 * `connections` are never read as a flow's uuid.
 */
export const catalogRoutes = (runtime: FlowsRuntime): AnyRoute[] => [...appRoutes(runtime), optionsRoute(runtime), ...connectionRoutes(runtime), ...oauthRoutes(runtime)];
