import { BootError } from '../errors/boot-error';
import type { RegisteredRoute, RouteDefinition, Scope } from './route';
import { compileValidator, type Validator } from './validation';
import { routePathProblem } from './route-table';

export interface CompiledRoute extends RegisteredRoute {
  auth: NonNullable<RegisteredRoute['auth']>;
  scope: Scope;
  status: number;
  transactional: boolean;
  validate: { params?: Validator; query?: Validator; body?: Validator };
}

/**
 * The one list of routes. The express app, request validation, the OpenAPI
 * document and the cross-tenant test sweep are all built from it, so they cannot
 * drift apart. Validators are compiled here, once, at boot.
 */
export class RouteRegistry {
  private readonly routes: CompiledRoute[] = [];
  private sealed = false;

  add(pluginId: string, route: RouteDefinition<any, any, any>): void {
    if (RESERVED_PATHS.some((reserved) => route.path === reserved || route.path.startsWith(`${reserved}/`))) {
      throw new BootError(`plugin "${pluginId}" may not add route ${route.method} ${route.path}: the kernel serves that path`);
    }
    if (this.sealed) throw new BootError(`plugin "${pluginId}" added route ${route.method} ${route.path} after the server started`);
    const key = routeKey(route.method, route.path);
    const clash = this.routes.find((existing) => routeKey(existing.method, existing.path) === key);
    if (clash) {
      throw new BootError(`route ${route.method} ${route.path} is registered twice (plugins "${clash.pluginId}" and "${pluginId}")`);
    }
    const pathProblem = routePathProblem(route.path);
    if (pathProblem) throw new BootError(`plugin "${pluginId}": ${pathProblem}`);
    const paramNames = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    const declared = Object.keys((route.params as any)?.properties ?? {});
    const undeclared = paramNames.filter((name) => !declared.includes(name));
    if (undeclared.length > 0) {
      throw new BootError(`route ${route.method} ${route.path} of plugin "${pluginId}" has no params schema for: ${undeclared.join(', ')}`);
    }
    let validate: CompiledRoute['validate'];
    try {
      validate = {
        params: route.params && compileValidator(route.params, 'params'),
        query: route.query && compileValidator(route.query, 'query'),
        body: route.body && compileValidator(route.body, 'body'),
      };
    } catch (error) {
      throw new BootError(`route ${route.method} ${route.path} of plugin "${pluginId}" has an invalid schema: ${(error as Error).message}`);
    }
    this.routes.push({
      ...route,
      pluginId,
      auth: route.auth ?? 'tenant',
      scope: route.scope ?? (route.method === 'GET' || route.method === 'OPTIONS' ? 'read' : 'write'),
      status: route.status ?? 200,
      transactional: route.transactional ?? (route.method !== 'GET' && route.method !== 'OPTIONS'),
      validate,
    });
  }

  list(): readonly CompiledRoute[] {
    return this.routes;
  }

  seal(): void {
    this.sealed = true;
  }
}

/** Paths the express app serves itself (health, the OpenAPI document, the docs page). */
const RESERVED_PATHS = ['/healthz', '/readyz', '/api/v1/openapi.json', '/docs'];

/** `/a/:id/b` and `/a/:other/b` are the same route. */
function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/:[A-Za-z0-9_]+/g, ':')}`;
}
