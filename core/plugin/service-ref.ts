import type { ExtensionRegistry } from './extension-point';

/**
 * A typed handle for a service a plugin can ask for in its `deps` map. The kernel
 * resolves each ref through the plugin's own tsyringe child container, so a
 * plugin-scoped service (its logger, its config slice) is built for that plugin
 * alone while root services are shared.
 */
export interface ServiceRef<T> {
  readonly id: string;
  /** Marker so refs are recognised structurally and carry their type; never read. */
  readonly $$service: 'switchboard.service-ref';
  readonly __type?: T;
}

export function createServiceRef<T>(id: string): ServiceRef<T> {
  return { id, $$service: 'switchboard.service-ref' };
}

/** How a plugin makes a service of its own available to the plugins that depend on it. */
export interface ServiceFactory<T = unknown, D extends DepsMap = DepsMap> {
  readonly service: ServiceRef<T>;
  readonly deps: D;
  /** Builds the service once per kernel, on first use (its own plugin's init or factories, or a later plugin); `extensions` holds every plugin's contributions. */
  factory(deps: ResolvedDeps<D>, context: ServiceFactoryContext): T | Promise<T>;
}

export interface ServiceFactoryContext {
  extensions: ExtensionRegistry;
}

export type DepsMap = Record<string, ServiceRef<unknown>>;
export type ResolvedDeps<D extends DepsMap> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

export function createServiceFactory<T, D extends DepsMap>(factory: ServiceFactory<T, D>): ServiceFactory<T, D> {
  return factory;
}

export function isServiceRef(value: unknown): value is ServiceRef<unknown> {
  return typeof value === 'object' && value !== null && (value as ServiceRef<unknown>).$$service === 'switchboard.service-ref';
}
